/**
 * `npm run openapi`: writes docs/openapi.json, the smoke client's types and the reference page
 * (Redoc, scripts inlined) from the route table. Run it after changing a route or a schema and commit
 * the result; test/unit/openapi.test.ts fails while what is committed is stale.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  buildDocument,
  DOCUMENT_FILE,
  documentMark,
  documentText,
  PAGE_FILE,
  ROOT,
  TYPES_FILE,
  typesText,
} from '../openapi/build';

/** `--check`: write nothing, exit 1 naming each generated file that differs from what would be generated. */
async function check(): Promise<void> {
  const document = buildDocument();
  const text = await documentText(document);
  const page = JSON.parse(readFileSync(path.join(ROOT, PAGE_FILE), 'utf8')) as string;
  const stale = [
    readFileSync(path.join(ROOT, DOCUMENT_FILE), 'utf8') === text ? null : DOCUMENT_FILE,
    readFileSync(path.join(ROOT, TYPES_FILE), 'utf8') === (await typesText(document)) ? null : TYPES_FILE,
    page.startsWith(`${documentMark(text)}\n`) ? null : PAGE_FILE,
  ].filter((file) => file !== null);
  if (stale.length === 0)
    return console.log('docs/openapi.json, its types and the reference page are up to date');
  console.error(`stale: ${stale.join(', ')}: run \`npm run openapi\` and commit the result`);
  process.exit(1);
}

async function main(): Promise<void> {
  if (process.argv.includes('--check')) return check();
  const document = buildDocument();
  const text = await documentText(document);
  writeFileSync(path.join(ROOT, DOCUMENT_FILE), text);
  writeFileSync(path.join(ROOT, TYPES_FILE), await typesText(document));

  const work = mkdtempSync(path.join(tmpdir(), 'reference-'));
  try {
    const html = path.join(work, 'reference.html');
    execFileSync(
      process.execPath,
      [
        require.resolve('@redocly/cli/bin/cli.js'),
        'build-docs',
        path.join(ROOT, DOCUMENT_FILE),
        '--inlineBundle',
        '--openapi.disableTelemetry=true',
        '--title',
        document.info.title,
        '--output',
        html,
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const page = readFileSync(html, 'utf8').replace(/^/, `${documentMark(text)}\n`);
    writeFileSync(path.join(ROOT, PAGE_FILE), `${JSON.stringify(page)}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(
    `wrote ${DOCUMENT_FILE}, ${TYPES_FILE} and ${PAGE_FILE} (${Object.keys(document.paths).length} paths)`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
