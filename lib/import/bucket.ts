/**
 * The stage's import bucket on S3, as the import engine uses it (lib/import/engine.ts). The client is
 * built on first use; `AWS_ENDPOINT_URL_S3` points it elsewhere (the tests' local S3).
 */
import { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { config } from '../config';
import { byCodePoint } from '../order';
import { chunk } from '../storage/batch';
import type { ImportFiles } from './engine';

let client: S3Client | undefined;
const s3 = () => (client ??= new S3Client({ forcePathStyle: config.s3PathStyle() }));

/** S3 deletes at most 1,000 keys a request. */
const DELETE_BATCH = 1000;

export function importBucket(bucket: string): ImportFiles {
  return {
    async read(key) {
      const { Body, ContentLength } = await s3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (!(Body instanceof Readable)) throw new Error(`s3://${bucket}/${key} has no readable body`);
      return { body: Body, bytes: ContentLength ?? 0 };
    },
    async write(key, body) {
      await s3().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
    async list(prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3().send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        token = page.NextContinuationToken;
      } while (token);
      // S3 lists in UTF-8 byte order, page by page: one order for the whole list, whatever the pages.
      return keys.sort(byCodePoint);
    },
    async remove(keys) {
      for (const batch of chunk(keys, DELETE_BATCH)) {
        const { Errors } = await s3().send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
        );
        if (Errors?.length)
          throw new Error(`could not remove ${Errors.length} work files from s3://${bucket}`);
      }
    },
  };
}
