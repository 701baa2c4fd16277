/**
 * What the bench's cases run on and with: the demo data on the bench's table (`loadData`, the
 * `BenchData` every case builds its events from), the functions chosen (`selectFunctions`), and the
 * environment of the function and floor processes (`childEnvironment`).
 */
import { functionEnvironment } from '../../infra/function';
import { COMPANIES, type BenchData, type FunctionId } from './bench-case';
import { BENCH_CASES } from './cases';
import { WARMUP_CALLS, type WorkDir } from './pairing';
import { progress } from './report';

/** The demo companies, lists and tokens on the bench's table, and what the cases build their events from. */
export async function loadData(workDir: WorkDir, rounds: number, calls: number): Promise<BenchData> {
  progress(`loading ${COMPANIES} demo companies, the demo lists and tokens`);
  const { generateDemoData } = await import('../fixtures/demo-data/companies');
  const { loadDemo, DEMO_TOKENS } = await import('../../infra/local/demo');
  const records = generateDemoData({ companies: COMPANIES });
  await loadDemo(records);
  // The demo lists (ids 1..7 on this fresh table; infra/local/demo-lists.ts).
  const { demoLists, loadDemoLists } = await import('../../infra/local/demo-lists');
  await loadDemoLists(records);
  // The pool of ids behind '{{pooled}}' in events (runners.ts); each function counts '{{seq}}' in a
  // file of its own (writePair).
  process.env['BENCH_POOL_FILE'] = workDir.write('pool.json', '[]');
  return {
    companies: records.map(({ country, companyNumber }) => ({ countryCode: country, companyNumber })),
    token: DEMO_TOKENS[0].token,
    // Cold (one per round and the warm-up round) and warm calls, for the function and its floor.
    callsPerFunction: 2 * (rounds + 1 + WARMUP_CALLS + rounds * calls),
    smartListCompany: (() => {
      const [, , , software] = demoLists(records);
      const { country, companyNumber } = software!.groups[0]!.companies[0]!;
      return { country, companyNumber };
    })(),
  };
}

/** The functions `--only` names (every one without it); an id with no case is an error. */
export function selectFunctions(only: string[] | undefined): FunctionId[] {
  const unknown = only?.filter((id) => !(id in BENCH_CASES));
  if (unknown?.length) throw new Error(`--only: no bench case ${unknown.join(', ')}`);
  return (Object.keys(BENCH_CASES) as FunctionId[]).filter((id) => !only || only.includes(id));
}

/** What the function and floor processes run with. */
export function childEnvironment(tableName: string, endpoint: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: endpoint,
    AWS_REGION: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // As the stack sets it on every route function and the authorizer: IAM, not the client, enforces
    // access; the storage client's per-attempt deadlines (armed on every request; the floors, bare SDK,
    // arm none); the request log's sample.
    ...functionEnvironment({ requestPath: true }),
    BENCH_POOL_FILE: process.env['BENCH_POOL_FILE'],
  };
  // A bare node, as in Lambda: no loader or flags inherited from tsx or the shell.
  delete env['NODE_OPTIONS'];
  return env;
}
