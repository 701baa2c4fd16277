/**
 * DynamoDB Local's JVM profiled by its own flight recorder (JFR), phase by phase: with BENCH_JFR_DIR set,
 * `jfrPhase` starts a recording (`jcmd PID JFR.start settings=profile`) in the DynamoDB Local serving the
 * endpoint before a phase of a bench and stops it after, into `BENCH_JFR_DIR/NN-phase.jfr`; unset (the
 * default), it only runs the phase. The filings bench wraps its floor's batched round, each import run and
 * its replays (test/bench/filing-import.ts).
 *
 *   BENCH_JFR_DIR=/tmp/jfr npx tsx test/bench/filings.ts --import 20000 --replay
 *   npx tsx test/bench/jfr.ts /tmp/jfr/01-floor-batch.jfr /tmp/jfr/02-import-filings.jfr   side by side
 *
 * The summary reads `jfr print --json` of the Java samples (jdk.ExecutionSample: a thread running Java
 * code, every 10 ms) and the native ones (jdk.NativeMethodSample: a thread inside a native method, every
 * 20 ms: SQLite's work through sqlite4java, and threads waiting in the kernel, told apart by their top
 * frame). It prints each recording's samples, as shares of its own, by the part of DynamoDB Local they
 * fall in (the first frame from the top that belongs to a known library), by top frame, and by the
 * DynamoDB Local methods on their stacks. The recorder takes one native sample a period among all the
 * threads in native code, most of them waiting: SQLite's share is undercounted, and the recorder never
 * samples the GC and compiler threads. Each recording's `.threads.txt` has the JVM's CPU in the phase
 * by thread, from /proc (all of SQLite's work runs on the one `SQLiteQueue` thread).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { dynamoDbLocalPid } from './local-dynamodb';

let recordings = 0;

/** Runs `phase`, recorded by DynamoDB Local's flight recorder when BENCH_JFR_DIR is set. */
export async function jfrPhase<T>(endpoint: string, name: string, phase: () => Promise<T>): Promise<T> {
  const dir = process.env['BENCH_JFR_DIR'];
  const pid = dir ? dynamoDbLocalPid(endpoint) : undefined;
  if (!dir || pid === undefined) return phase();
  mkdirSync(dir, { recursive: true });
  const label = `${String(++recordings).padStart(2, '0')}-${name.replace(/[^\w.-]+/g, '-')}`;
  const filename = path.resolve(dir, `${label}.jfr`);
  const jcmd = (...args: string[]) => execFileSync('jcmd', [String(pid), ...args], { stdio: 'ignore' });
  jcmd('JFR.start', `name=${label}`, 'settings=profile', `filename=${filename}`);
  const before = threadCpuMs(pid);
  try {
    return await phase();
  } finally {
    const after = threadCpuMs(pid);
    jcmd('JFR.stop', `name=${label}`);
    // By thread, then threads of one kind summed (their numbers dropped); a thread ended in the phase is lost.
    const byKind = new Map<string, number>();
    for (const [tid, { name, ms }] of after) {
      const kind = name.replace(/\d+/g, 'N');
      byKind.set(kind, (byKind.get(kind) ?? 0) + ms - (before.get(tid)?.ms ?? 0));
    }
    const lines = [...byKind]
      .filter(([, ms]) => ms > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([thread, ms]) => `${String(Math.round(ms)).padStart(8)} ms  ${thread}`);
    writeFileSync(filename.replace(/\.jfr$/, '.threads.txt'), `${lines.join('\n')}\n`);
    console.error(`JFR recording of ${name}: ${filename} (CPU by thread beside it)`);
  }
}

/** The JVM's CPU (ms) so far by thread id, from /proc: its GC and compiler threads too, which the recorder never samples. */
function threadCpuMs(pid: number): Map<string, { name: string; ms: number }> {
  const cpu = new Map<string, { name: string; ms: number }>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
    } catch {
      continue;
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    cpu.set(task, { name, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 });
  }
  return cpu;
}

interface Frame {
  method: { type: { name: string }; name: string };
}
interface Sample {
  type: string;
  values: { stackTrace?: { frames: Frame[] } | null };
}

/** The parts of DynamoDB Local a sample is put in: the first frame from the top in one of them. */
const PARTS: [string, RegExp][] = [
  ['SQLite (sqlite4java)', /^com[./]almworks[./]sqlite4java[./]/],
  ['Jackson (JSON)', /^com[./]fasterxml[./]jackson[./]/],
  [
    'DynamoDB Local',
    /^(software[./]amazon[./]dynamodb[./]|com[./]amazonaws[./]services[./]dynamodbv2[./](local|parser)[./])/,
  ],
  ['AWS SDK (models, marshalling)', /^com[./]amazonaws[./]/],
  ['Jetty (HTTP)', /^org[./]eclipse[./]jetty[./]/],
  ['other libraries', /^(?!java[./]|javax[./]|jdk[./]|sun[./])/],
];
const LOCAL = PARTS[2]![1];

function partOf(names: string[]): string {
  for (const name of names) for (const [part, re] of PARTS) if (re.test(name)) return part;
  return 'the JDK alone';
}

/** Native frames where a thread waits rather than works (selectors, accepts, parks). */
const WAITING =
  /EPoll\.wait|Net\.accept|Net\.poll|Unsafe\.park|Object\.wait|Thread\.sleep|SocketDispatcher\.read/;

const methodOf = (frame: Frame) => `${frame.method.type.name}.${frame.method.name}`;

interface Profile {
  file: string;
  /** Samples' worth of 10 ms working (a native sample weighs 2), Java and native. */
  java: number;
  native: number;
  /** Native samples' worth waiting in the kernel (left out of the rest). */
  waiting: number;
  parts: Map<string, number>;
  tops: Map<string, number>;
  /** DynamoDB Local's methods, each counted once a sample it is on the stack of. */
  local: Map<string, number>;
}

/** The working samples of a recording, counted by part, by top frame and by DynamoDB Local method. */
export function profileOf(file: string): Profile {
  const json = execFileSync(
    'jfr',
    [
      'print',
      '--json',
      '--stack-depth',
      '96',
      '--events',
      'jdk.ExecutionSample,jdk.NativeMethodSample',
      file,
    ],
    { maxBuffer: 1 << 30 },
  ).toString();
  const samples = (JSON.parse(json) as { recording: { events: Sample[] } }).recording.events;
  const profile: Profile = {
    file,
    java: 0,
    native: 0,
    waiting: 0,
    parts: new Map(),
    tops: new Map(),
    local: new Map(),
  };
  const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);
  for (const sample of samples) {
    const frames = sample.values.stackTrace?.frames ?? [];
    if (frames.length === 0) continue;
    const isNative = sample.type === 'jdk.NativeMethodSample';
    // A native sample stands for 20 ms, a Java one for 10: weighed as such.
    const weight = isNative ? 2 : 1;
    if (isNative && WAITING.test(methodOf(frames[0]!))) {
      profile.waiting += weight;
      continue;
    }
    if (isNative) profile.native += weight;
    else profile.java += weight;
    const names = frames.map(methodOf);
    add(profile.parts, partOf(names), weight);
    add(profile.tops, `${isNative ? '[native] ' : ''}${names[0]}`, weight);
    for (const n of new Set(names.filter((n) => LOCAL.test(n))))
      add(profile.local, n.replace(LOCAL, ''), weight);
  }
  return profile;
}

/**
 * The recordings side by side, each figure a share of its recording's working samples (the sampler
 * catches a different fraction of the CPU in each: shares compare, counts do not), the most frequent
 * first, by part, by top frame and by DynamoDB Local method.
 */
export function compare(files: string[], top = 25): string[] {
  const profiles = files.map(profileOf);
  const total = (p: Profile) => Math.max(1, p.java + p.native);
  const table = (title: string, pick: (p: Profile) => Map<string, number>) => {
    const keys = new Map<string, number>();
    for (const p of profiles) for (const [k, n] of pick(p)) keys.set(k, (keys.get(k) ?? 0) + n / total(p));
    return [
      title,
      ...[...keys]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(
          ([k]) =>
            profiles
              .map((p) => `${((100 * (pick(p).get(k) ?? 0)) / total(p)).toFixed(1).padStart(6)} %`)
              .join(' ') + `  ${k}`,
        ),
    ];
  };
  return [
    ...profiles.map(
      (p, i) =>
        `[${i + 1}] ${path.basename(p.file)}: ${p.java + p.native} working (${p.java} Java, ${p.native} native), ${p.waiting} waiting`,
    ),
    ...table('by part (the first frame from the top in a known library):', (p) => p.parts),
    ...table('by top frame:', (p) => p.tops),
    ...table('DynamoDB Local methods on the stack (inclusive):', (p) => p.local),
  ];
}

if (require.main === module) {
  const files = process.argv.slice(2);
  if (files.length === 0 || !files.every((f) => f.endsWith('.jfr'))) {
    console.error('usage: npx tsx test/bench/jfr.ts RECORDING.jfr [RECORDING.jfr …]');
    process.exit(2);
  }
  console.log(compare(files).join('\n'));
}
