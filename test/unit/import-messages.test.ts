/**
 * What the import tells the person running it (contract §11.2): each rejected line names the field and
 * the rule it breaks, a file that cannot be read says so and nothing else, and the progress report is
 * one line redrawn on a terminal and at most one line per 10 % otherwise.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { progressReporter, type ProgressStream } from '../../infra/cli/import-progress';
import { fileLines, judgeLines, sketchLine, type Line } from '../../lib/import/lines';
import { companyRecord, period } from '../support/records';

const ROOT = path.join(__dirname, '../..');

/** Every rejection of a file, as `line N: reason`, judged the way the import judges it. */
async function rejections(text: string): Promise<string[]> {
  const { lines } = await fileLines(Readable.from([Buffer.from(text)]));
  const read: Line[] = [];
  let line = 0;
  for await (const content of lines) {
    line++;
    if (content.trim()) read.push({ line, text: content, ...sketchLine(content) });
  }
  const rejected: string[] = [];
  judgeLines(read, () => undefined, {
    firstLineOf: new Map(),
    reject: (n, reason) => rejected.push(`line ${n}: ${reason}`),
    unchanged: () => undefined,
  });
  return rejected;
}

const json = (value: unknown) => JSON.stringify(value);
const withoutPeople = () => {
  const p: Partial<ReturnType<typeof period>> = period(2023);
  delete p.people;
  return p;
};
const named = (n: number) => ({
  country: 'NL',
  companyNumber: String(10_000_000 + n),
  name: `Bedrijf ${n} BV`,
});

describe('import rejections', () => {
  it('name the line, the field and the rule, line by line', async () => {
    const nameless: Partial<ReturnType<typeof companyRecord>> = companyRecord();
    delete nameless.name;
    const file = [
      json(named(1)),
      '',
      json(nameless),
      '{"country": "BE",',
      '[1, 2]',
      json({ ...named(6), activities: ['6'] }),
      json({ ...named(7), financials: [withoutPeople()] }),
      json({ ...named(8), foundedOn: '2023-02-30' }),
      json({ ...named(9), vatNumber: 'FR12552100554' }),
      json({ ...named(10), country: 'DE' }),
      json({ ...named(11), companyNumber: '12' }),
      json({ ...named(12), contacts: [{ contactId: 1, firstName: 'An' }] }),
      json({ ...named(13), shareholders: [{ name: 'Jan', percentage: 0 }] }),
      json({ ...named(14), financials: 'none' }),
      json(named(1)),
      json({ ...named(16), vatNumber: 'FR96552100554' }),
    ].join('\n');
    expect(await rejections(file)).toEqual([
      'line 3: name is required',
      'line 4: not valid JSON',
      'line 5: record must be a JSON object',
      'line 6: activities[0] must be a NACE code of 2 to 5 digits',
      'line 7: financials[0].people is required',
      'line 8: foundedOn must be a date that exists',
      'line 9: vatNumber FR12552100554 has a wrong check key',
      'line 10: country DE is not BE, NL or FR',
      'line 11: companyNumber 12 is not a valid NL company number (its format or check digits)',
      'line 12: contacts[0].lastName is required',
      'line 13: shareholders[0].percentage must be > 0',
      'line 14: financials must be an array of periods',
      'line 15: NL 10000001 already appeared on line 1',
    ]);
  });
});

describe('a file the import cannot read', () => {
  const run = promisify(execFile);
  const importing = async (file: string) => {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        ['--import', 'tsx', path.join(ROOT, 'infra/cli/import.ts'), file],
        { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '', DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' } },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { code, stdout, stderr };
    }
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'import-messages-'));

  it('is named, with what is wrong, and nothing else', async () => {
    const missing = path.join(dir, 'missing.jsonl');
    expect(await importing(missing)).toEqual({
      code: 2,
      stdout: '',
      stderr: `cannot read ${missing}: no such file\n`,
    });
    expect(await importing(dir)).toEqual({
      code: 2,
      stdout: '',
      stderr: `cannot read ${dir}: it is a directory\n`,
    });
  });

  // root reads any file, so the permission case only means something for another user.
  const unreadable = process.getuid?.() === 0 ? it.skip : it;
  unreadable('says when it may not be read', async () => {
    const locked = path.join(dir, 'locked.jsonl');
    writeFileSync(locked, `${json(named(1))}\n`);
    chmodSync(locked, 0o000);
    expect((await importing(locked)).stderr).toBe(`cannot read ${locked}: permission denied\n`);
  });
});

/** A stream that keeps what is written to it. */
function recorder(isTTY: boolean): ProgressStream & { writes: string[] } {
  const writes: string[] = [];
  return { isTTY, writes, write: (text: string) => writes.push(text) > 0 };
}

describe('progress', () => {
  it('prints one line for a file read in one go, not ten', () => {
    const stream = recorder(false);
    const progress = progressReporter(120, stream);
    progress.advance(120);
    progress.imported(1);
    progress.stop();
    expect(stream.writes).toEqual(['100% of the file read, 1 company imported\n']);
  });

  it('prints at most one line per tenth read, with the companies imported by then', () => {
    const stream = recorder(false);
    const progress = progressReporter(1000, stream);
    for (let read = 0; read < 1000; read += 50) {
      progress.advance(50);
      if (read % 200 === 150) progress.imported(read);
    }
    progress.log('line 7: name is required');
    progress.stop();
    expect(stream.writes).toEqual([
      '20% of the file read, 150 companies imported\n',
      '40% of the file read, 350 companies imported\n',
      '60% of the file read, 550 companies imported\n',
      '80% of the file read, 750 companies imported\n',
      '100% of the file read, 950 companies imported\n',
      'line 7: name is required\n',
    ]);
  });

  it('says nothing of a standard input of unknown size but its rejected lines', () => {
    const stream = recorder(false);
    const progress = progressReporter(null, stream);
    progress.advance(5000);
    progress.imported(10);
    progress.log('line 2: not valid JSON');
    progress.stop();
    expect(stream.writes).toEqual(['line 2: not valid JSON\n']);
  });

  it('on a terminal, redraws one line in place below what was printed before it', () => {
    const stream = recorder(true);
    stream.write('importing companies.jsonl into the local stage, as of 2026-11-21\n');
    const progress = progressReporter(1_000_000, stream);
    for (let i = 0; i < 10; i++) {
      progress.advance(100_000);
      progress.imported(i * 10);
    }
    const drawn = stream.writes.slice(1).join('');
    progress.log('line 3: name is required');
    const afterLog = stream.writes.slice(1).join('').slice(drawn.length);
    progress.stop();
    // The heading is whole, and the bar is drawn from the start of its own line, never moving to another.
    expect(stream.writes[0]).toBe('importing companies.jsonl into the local stage, as of 2026-11-21\n');
    expect(drawn).toContain('\x1b[1G');
    expect(drawn).not.toContain('\n');
    // A rejected line clears the bar's line, takes it, and the bar is drawn again below, up to date.
    const logged = '\r\x1b[Kline 3: name is required\n';
    expect(afterLog.startsWith(logged)).toBe(true);
    expect(afterLog.slice(logged.length)).toContain('100% | 1.0/1.0 MB | 90 companies imported');
    expect(afterLog.slice(logged.length)).not.toContain('\n');
  });
});
