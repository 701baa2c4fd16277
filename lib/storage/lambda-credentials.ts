/**
 * Stands in for `@aws-sdk/credential-provider-node` (the SDK's default credential chain) in the function
 * bundles: infra/bundling.ts aliases the one to the other. Lambda hands a function its role's
 * credentials in environment variables, the first link of the default chain; the rest of the chain
 * (INI files, SSO, login, credential processes, web identity, container and instance metadata) is about
 * 130 KB of minified code that a function loads at every cold start and never uses. The CLIs, tests and
 * the local stage run the sources unbundled, with the whole chain.
 */
export { fromEnv as defaultProvider } from '@aws-sdk/credential-provider-env';
