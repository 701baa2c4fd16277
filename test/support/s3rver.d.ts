/** s3rver ships no types; test/support/local-s3.ts types what the tests use. */
declare module 's3rver';
