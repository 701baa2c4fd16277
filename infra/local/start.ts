/**
 * `npm start`: the local stage. Starts DynamoDB Local (or uses DYNAMODB_ENDPOINT), creates the table
 * from the shared definition, loads the demo data and serves the route table on HOST:PORT
 * (127.0.0.1:3000: reachable from this machine only, unless HOST says otherwise).
 *
 *   npm start                      demo data, gone when it stops (imported once per code change and
 *                                  kept in node_modules/.cache: infra/local/demo-cache.ts)
 *   npm start -- --fresh           import the demo data again, ignoring that cache
 *   npm start -- --persist .data   keep the data in .data/ across runs
 *
 * It says what it is doing while it starts; a port that is taken ends it with one line saying which
 * variable to set. Ctrl-C (or SIGTERM) stops the API and DynamoDB Local, also while still starting.
 */
import type http from 'node:http';
import { parseArgs } from 'node:util';
import { LOCAL_TABLE_NAME } from '../../lib/storage/table';
import { openDemoCache, type DemoCache } from './demo-cache';
import {
  ensureTable,
  JAVA_MISSING,
  javaAvailable,
  portInUse,
  PortInUseError,
  startDynamoDbLocal,
  type LocalDynamoDb,
} from './dynamodb';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

/** The code `npm start` needs once DynamoDB Local answers, and the demo data (generated, not stored). */
async function prepare() {
  const since = Date.now();
  // Loaded only after DYNAMODB_ENDPOINT may be set: the storage client reads it when first used.
  const [companies, snapshots, demo, lists, importer, gateway, holdings] = await Promise.all([
    import('../../test/fixtures/demo-data/companies'),
    import('../../test/fixtures/demo-data/snapshots'),
    import('./demo'),
    import('./demo-lists'),
    import('../../lib/import/import'),
    import('./gateway'),
    import('../../lib/companies/holdings-store'),
  ]);
  const records = companies.generateDemoData();
  const olderRecords = snapshots.olderSnapshotOf(records);
  const modules = {
    pickExamples: companies.pickExamples,
    DEMO_SNAPSHOT_DATE: snapshots.DEMO_SNAPSHOT_DATE,
    DEMO_AS_OF: demo.DEMO_AS_OF,
    DEMO_TOKENS: demo.DEMO_TOKENS,
    createDemoTokens: demo.createDemoTokens,
    importDemoSnapshots: demo.importDemoSnapshots,
    loadDemoLists: lists.loadDemoLists,
    formatSummary: importer.formatSummary,
    createGateway: gateway.createGateway,
    getRelationships: holdings.getRelationships,
  };
  return { records, olderRecords, modules, ms: Date.now() - since };
}

async function main(): Promise<void> {
  const started = Date.now();
  /** How long each start-up phase took (ms), for the ready line. */
  const phases: Array<[string, number]> = [];
  const { values } = parseArgs({ options: { persist: { type: 'string' }, fresh: { type: 'boolean' } } });
  const port = Number(process.env['PORT'] ?? 3000);
  const host = process.env['HOST'] ?? '127.0.0.1';
  const dynamoPort = Number(process.env['DYNAMODB_LOCAL_PORT'] ?? 8000);
  const tableName = (process.env['TABLE_NAME'] ??= LOCAL_TABLE_NAME);

  // Ctrl-C at any point stops DynamoDB Local with us, even while it is still starting.
  let local: LocalDynamoDb | undefined;
  let cache: DemoCache | undefined;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log('stopping…');
    void Promise.resolve(local?.stop()).finally(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  // Checked first: a taken API port should not cost a DynamoDB Local start to find out.
  if (await portInUse(port, host)) throw new PortInUseError(port);

  // What needs no DynamoDB — loading the code (tsx compiles it on first import) and generating the demo
  // companies with their older snapshot — runs while DynamoDB Local's JVM boots on the other core.
  let spawned: () => void = () => undefined;
  const javaSpawned = new Promise<void>((resolve) => (spawned = resolve));
  const prepared = javaSpawned.then(() => prepare());
  prepared.catch(() => undefined); // its failure is reported where it is awaited

  if (!process.env['DYNAMODB_ENDPOINT']) {
    if (!javaAvailable()) {
      console.error(JAVA_MISSING);
      process.exit(1);
    }
    const since = Date.now();
    cache = values.persist || values.fresh ? undefined : openDemoCache(tableName);
    console.log(
      `starting DynamoDB Local on port ${dynamoPort}${values.persist ? `, data in ${values.persist}` : ' (in memory)'}…`,
    );
    const dataDir = values.persist ?? cache?.workDir;
    local = await startDynamoDbLocal({
      port: dynamoPort,
      ...(dataDir ? { persistDir: dataDir } : {}),
      onSpawned: spawned,
    });
    phases.push(['DynamoDB Local', Date.now() - since]);
    console.log(`DynamoDB Local ready on ${local.endpoint} (${seconds(since)})`);
    process.env['DYNAMODB_ENDPOINT'] = local.endpoint;
  }
  spawned();
  const endpoint = process.env['DYNAMODB_ENDPOINT']!;
  console.log(
    `creating table ${tableName} on ${endpoint} and loading the demo data (kept if the table exists)…`,
  );

  let since = Date.now();
  const created = await ensureTable(endpoint, tableName);
  if (!created) {
    // Data kept from an earlier start may hold watched lists older than their index (docs/operations.md).
    const { backfillWatchedLists, backfillRan } = await import('../../lib/events/backfill');
    if (!(await backfillRan())) {
      const { added } = await backfillWatchedLists();
      console.log(`  watched lists backfilled: ${added} filed for the import's events derivation`);
    }
  }
  phases.push(['table', Date.now() - since]);
  since = Date.now();
  const { records, olderRecords, modules, ms: preparedMs } = await prepared;
  const waited = Date.now() - since;
  if (waited >= 50) phases.push(['code and demo data', waited]);
  const { DEMO_SNAPSHOT_DATE, DEMO_AS_OF, DEMO_TOKENS, pickExamples } = modules;
  console.log(
    `  code loaded and ${records.length} demo companies generated in ${(preparedMs / 1000).toFixed(1)} s` +
      (local ? ', while DynamoDB Local started' : ''),
  );
  if (!created && cache?.hit) {
    console.log(
      `  the demo data as an earlier start of this code imported it (${cache.file}): nothing to import`,
    );
  }
  if (created) {
    console.log(
      `importing ${records.length} demo companies (the same import as \`npm run import\`): ` +
        `their older snapshot as of ${DEMO_SNAPSHOT_DATE}, then the current data as of ${DEMO_AS_OF}…`,
    );
    let nextQuarter = 1;
    since = Date.now();
    // The tokens are independent of the companies: stored while the import runs.
    const tokens = modules.createDemoTokens();
    tokens.catch(() => undefined);
    const { current } = await modules.importDemoSnapshots(
      records,
      {
        older: ({ read }) => {
          for (; nextQuarter < 4 && read >= (records.length * nextQuarter) / 4; nextQuarter++) {
            console.log(`  ${read} of ${records.length}`);
          }
        },
        olderDone: (summary) => {
          phases.push(['older snapshot', Date.now() - since]);
          since = Date.now();
          console.log(`  older snapshot: ${modules.formatSummary(summary)}`);
        },
      },
      olderRecords,
    );
    phases.push(['current data', Date.now() - since]);
    console.log(`  current data:   ${modules.formatSummary(current)}`);
    since = Date.now();
    await tokens;
    const ids = await modules.loadDemoLists(records);
    phases.push(['tokens and lists', Date.now() - since]);
    console.log(`  demo lists: ids ${ids.join(', ')} (acme 1–4, globex 5–7) (${seconds(since)})`);
    if (cache && local) {
      // DynamoDB Local closes its file when it stops: the copy is whole. Then it serves the same file.
      since = Date.now();
      await local.stop();
      cache.save();
      local = await startDynamoDbLocal({ port: dynamoPort, persistDir: cache.workDir });
      phases.push(['keeping the demo data for the next start', Date.now() - since]);
      console.log(`  kept for the next start of this code in ${cache.file} (${seconds(since)})`);
    }
  }

  const server = modules.createGateway();
  await listen(server, port, host);
  const base = `http://${urlHost(host)}:${port}`;
  const [token] = DEMO_TOKENS;
  const picked = pickExamples(records);
  const examples = picked.map(({ country, companyNumber }) => `${country}/${companyNumber}`);
  const example = examples[0] ?? 'BE/0403170701';
  // The legal entity id the import gave the example company (the updates endpoints take only that).
  const legalEntityId = picked[0] ? (await modules.getRelationships(picked[0]))?.legalEntityId : undefined;
  console.log(
    [
      '',
      `Company data API (local stage) on ${base}/v1   ready in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
        `(${phases.map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`).join(', ')})`,
      `DynamoDB: ${endpoint}, table ${tableName}${created ? `, ${records.length} demo companies loaded` : cache?.hit ? `, ${records.length} demo companies (as an earlier start of this code imported them; \`npm start -- --fresh\` imports them again)` : ' (existing data kept)'}`,
      '',
      'Demo tokens (local stage only):',
      ...DEMO_TOKENS.map((t) => `  ${t.token.padEnd(36)} ${t.note}`),
      '',
      `Example companies: ${examples.join(', ')}`,
      '',
      'Try:',
      `  curl ${base}/v1/health`,
      `  curl -H 'Authorization: Bearer ${token.token}' '${base}/v1/companies/${example}/financials?limit=2'`,
      `  curl -H 'Authorization: Bearer ${token.token}' -H 'Content-Type: application/json' \\`,
      `       -d '{"companies":[{"countryCode":"${example.split('/')[0]}","companyNumber":"${example.split('/')[1]}"}],"limit":1}' ${base}/v1/companies/financials`,
      ...(legalEntityId
        ? [
            `  curl -H 'Authorization: Bearer ${token.token}' -H 'Accept-Language: nl' '${base}/v1/legal-entities/${legalEntityId}/updates'`,
          ]
        : []),
      '',
      'Webhooks: register a receiver, then run it with the secret the answer shows (it verifies and prints each event):',
      `  curl -H 'Authorization: Bearer ${token.token}' -H 'Content-Type: application/json' \\`,
      `       -d '{"url":"http://127.0.0.1:4000/hook"}' ${base}/v1/webhooks`,
      '  WEBHOOK_SECRET=whsec_… npm run webhook-receiver -- --port 4000',
      '',
      'Ctrl-C stops the API and DynamoDB Local.',
    ].join('\n'),
  );
}

/** Listens on host:port; a port taken meanwhile is a PortInUseError, not an EADDRINUSE stack. */
function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port) : error),
    );
    server.listen(port, host, resolve);
  });
}

/** The host part of a URL for `host`: every interface is reached as localhost; IPv6 goes in brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** One line that says what went wrong and which setting changes it. */
function explain(error: unknown): string {
  if (error instanceof PortInUseError) {
    const dynamoPort = Number(process.env['DYNAMODB_LOCAL_PORT'] ?? 8000);
    const apiPort = Number(process.env['PORT'] ?? 3000);
    if (error.port === apiPort) {
      return `port ${apiPort} is in use: set PORT=… to a free port (PORT=${apiPort + 1} npm start)`;
    }
    if (error.port === dynamoPort) {
      return (
        `DynamoDB Local port ${dynamoPort} is in use: set DYNAMODB_LOCAL_PORT=… to a free port ` +
        `(DYNAMODB_LOCAL_PORT=${dynamoPort + 1} npm start), or DYNAMODB_ENDPOINT=http://127.0.0.1:${dynamoPort} ` +
        'to use the DynamoDB Local already running there'
      );
    }
  }
  if (!(error instanceof Error)) return String(error);
  return error.message ? error.message.split('\n')[0]! : error.name;
}

main().catch((error: unknown) => {
  // Exiting stops DynamoDB Local too (it is killed on process exit).
  console.error(explain(error));
  process.exit(1);
});
