/**
 * OWASP API7 (server-side request forgery): no code that runs in a function opens a connection to an
 * address of its own choosing. The functions talk to AWS through the SDK's clients (DynamoDB, S3,
 * Secrets Manager, API Gateway's usage, KMS, SQS); a website or
 * domain a caller sends is parsed (tldts), never fetched. A
 * module that does need to call out (a webhook delivery, say) must be listed here with the guard that
 * keeps it off private and link-local addresses.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** Ways to open a connection from Node.js besides the AWS SDK. */
const OUTBOUND =
  /\bfetch\s*\(|from ['"](node:)?(http|https|http2|net|tls|dgram)['"]|require\(['"](node:)?(http|https|net|tls)['"]\)|from ['"](undici|axios|got|node-fetch)['"]/;

/** Modules allowed to call out (or matched by the pattern without calling out), each with its reason and guard. */
const ALLOWED: Record<string, string> = {
  'lib/webhooks/send.ts':
    "webhook delivery (§12): connects only to the addresses checkUrl resolved and found public (lib/webhooks/url.ts, the local stage's localhost aside), follows no redirect, gives up after 10 s",
  'lib/webhooks/url.ts': 'imports node:net for BlockList and isIP (the address rules), opens no connection',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return name.endsWith('.ts') ? [file] : [];
  });
}

it('finds no outbound connection in lib/ or functions/ but through the AWS SDK', () => {
  const offenders = ['lib', 'functions']
    .flatMap((dir) => sourceFiles(path.join(ROOT, dir)))
    .map((file) => path.relative(ROOT, file))
    .filter((file) => !(file in ALLOWED) && OUTBOUND.test(readFileSync(path.join(ROOT, file), 'utf8')));
  expect(offenders).toEqual([]);
});

it('would notice one (the pattern matches what it is meant to)', () => {
  for (const line of [
    "await fetch('http://169.254.169.254/')",
    "import https from 'node:https';",
    "import { request } from 'undici';",
  ]) {
    expect(OUTBOUND.test(line)).toBe(true);
  }
  expect(OUTBOUND.test("import { createHash } from 'node:crypto';")).toBe(false);
});
