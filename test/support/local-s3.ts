/**
 * A local S3 for the tests of the import engine's bucket code (lib/import/bucket.ts): s3rver speaks
 * S3's REST protocol over HTTP, so the AWS SDK's S3 client runs unchanged against it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  port: number;
  address: string;
  silent: boolean;
  directory: string;
  configureBuckets: Array<{ name: string }>;
}) => S3rverInstance;

/** Starts a local S3 with `bucket` for the file's tests and points the SDK's S3 client at it. */
export function useLocalS3(bucket: string): void {
  const directory = mkdtempSync(path.join(os.tmpdir(), 's3-'));
  let server: S3rverInstance | undefined;
  beforeAll(async () => {
    // s3rver ships no types: its constructor as the tests use it.
    const S3rver = (await import('s3rver')).default as unknown as S3rverClass;
    server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory,
      configureBuckets: [{ name: bucket }],
    });
    const { port } = await server.run();
    process.env['AWS_ENDPOINT_URL_S3'] = `http://127.0.0.1:${port}`;
    // 'local', as the tests' DynamoDB Local clients: DynamoDB Local keeps tables per region.
    process.env['AWS_REGION'] ??= 'local';
    process.env['AWS_ACCESS_KEY_ID'] ??= 'S3RVER';
    process.env['AWS_SECRET_ACCESS_KEY'] ??= 'S3RVER';
  });
  afterAll(async () => {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });
}
