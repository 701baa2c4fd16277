/**
 * `npm start`: the local stage. Starts DynamoDB Local (or uses DYNAMODB_ENDPOINT), creates the table
 * from the shared definition, loads the demo data and serves the route table on PORT (3000).
 *
 *   npm start                      in-memory data, gone when it stops
 *   npm start -- --persist .data   keep the data in .data/ across runs
 */
import { parseArgs } from 'node:util';
import { LOCAL_TABLE_NAME } from '../table';
import { ensureTable, JAVA_MISSING, javaAvailable, startDynamoDbLocal, type LocalDynamoDb } from './dynamodb';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

async function main(): Promise<void> {
  const started = Date.now();
  const { values } = parseArgs({ options: { persist: { type: 'string' } } });
  const port = Number(process.env['PORT'] ?? 3000);
  const dynamoPort = Number(process.env['DYNAMODB_LOCAL_PORT'] ?? 8000);
  const tableName = (process.env['TABLE_NAME'] ??= LOCAL_TABLE_NAME);

  let local: LocalDynamoDb | undefined;
  if (!process.env['DYNAMODB_ENDPOINT']) {
    if (!javaAvailable()) {
      console.error(JAVA_MISSING);
      process.exit(1);
    }
    local = await startDynamoDbLocal({
      port: dynamoPort,
      ...(values.persist ? { persistDir: values.persist } : {}),
    });
    process.env['DYNAMODB_ENDPOINT'] = local.endpoint;
  }
  const endpoint = process.env['DYNAMODB_ENDPOINT']!;
  const stop = () => {
    local?.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  // Loaded only now: the storage client reads DYNAMODB_ENDPOINT when first imported.
  const { generateDemoData, pickExamples } = await import('./demo-data');
  const { loadDemo, DEMO_TOKENS } = await import('./demo');
  const { createGateway } = await import('./gateway');

  const created = await ensureTable(endpoint, tableName);
  const records = generateDemoData();
  if (created) await loadDemo(records);

  const server = createGateway();
  await new Promise<void>((resolve) => server.listen(port, resolve));
  const base = `http://localhost:${port}`;
  const [token] = DEMO_TOKENS;
  const examples = pickExamples(records).map(({ company }) => `${company.country}/${company.companyNumber}`);
  const example = examples[0] ?? 'BE/0403170701';
  console.log(
    [
      '',
      `Company data API (local stage) on ${base}/v1   ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      `DynamoDB: ${endpoint}, table ${tableName}${created ? `, ${records.length} demo companies loaded` : ' (existing data kept)'}`,
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
      '',
      'Ctrl-C stops the API and DynamoDB Local.',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
