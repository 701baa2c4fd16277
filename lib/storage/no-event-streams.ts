/**
 * Stands in for `@smithy/core/event-streams` in function bundles (infra/bundling.ts). The SDK's HTTP
 * protocol imports that module on demand, only for an operation with an event-stream member, and no
 * operation our functions call has one (DynamoDB has none; the import engine's S3 calls are GetObject,
 * PutObject, ListObjectsV2 and DeleteObjects). esbuild bundles a dynamic import all the same: about 19 KB
 * of every bundle for code that never runs. The S3 client still wires a marshaller into its
 * configuration when it is built: it gets one that refuses, so an event stream, should one ever be
 * called, fails loudly here instead of misbehaving.
 */
function unsupported(): never {
  throw new Error('Event streams are left out of the function bundles (lib/storage/no-event-streams.ts)');
}

const refusingMarshaller = { serialize: unsupported, deserialize: unsupported };

export const eventStreamSerdeProvider = () => refusingMarshaller;

export const resolveEventStreamSerdeConfig = <T extends object>(input: T) =>
  Object.assign(input, { eventStreamMarshaller: refusingMarshaller });

export class EventStreamSerde {
  constructor() {
    unsupported();
  }
}
