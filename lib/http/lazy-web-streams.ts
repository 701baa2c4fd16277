/**
 * Stands in for `node:stream/web` in the function bundles (infra/bundling.ts aliases the one to the
 * other). @middy/core imports `ReadableStream` from it for streamed responses, which our functions never
 * send, and loading Node's web streams is most of a small function's cold start (about 4 ms of the
 * 4.5 ms of get-health on Node 20). Every export of `node:stream/web` is also a global of Node, set up on
 * first use: each export here is a getter that reads the global when it is used, not before.
 *
 * CommonJS on purpose: a bundle reads a CommonJS module's properties where they are used (so the getters
 * run late), while an ES module's bindings would be read when it loads.
 */
const NAMES = [
  'ReadableStream',
  'ReadableStreamDefaultReader',
  'ReadableStreamBYOBReader',
  'ReadableStreamBYOBRequest',
  'ReadableByteStreamController',
  'ReadableStreamDefaultController',
  'TransformStream',
  'TransformStreamDefaultController',
  'WritableStream',
  'WritableStreamDefaultWriter',
  'WritableStreamDefaultController',
  'ByteLengthQueuingStrategy',
  'CountQueuingStrategy',
  'TextEncoderStream',
  'TextDecoderStream',
  'CompressionStream',
  'DecompressionStream',
] as const;

module.exports = Object.defineProperties(
  {},
  Object.fromEntries(
    NAMES.map((name) => [
      name,
      { enumerable: true, get: () => (globalThis as unknown as Record<string, unknown>)[name] },
    ]),
  ),
);
