import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { CompanyDataStack } from './stack';

const STAGE_PATTERN = /^[a-z][a-z0-9-]{1,20}$/;

const app = new App();

const stage: unknown = app.node.tryGetContext('stage') ?? 'dev';
if (typeof stage !== 'string' || !STAGE_PATTERN.test(stage)) {
  throw new Error(
    `-c stage=${String(stage)} must match ${STAGE_PATTERN.source} (it names the stack and API)`,
  );
}

const flag = (name: string): boolean | undefined => {
  const value: unknown = app.node.tryGetContext(name);
  if (value === undefined) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`-c ${name}=${String(value)} must be true or false`);
};
const production = flag('production') ?? stage === 'prod';
const context = (name: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(name);
  return typeof value === 'string' && value !== '' ? value : undefined;
};

new CompanyDataStack(app, `CompanyData-${stage}`, {
  stage,
  disposable: flag('disposable') ?? false,
  production,
  // A production stage takes its account and region from -c account= -c region= only (the stack refuses
  // to synthesise without them); other stages may use the CLI's credentials, or none to synthesise.
  env: {
    account: context('account') ?? (production ? undefined : process.env.CDK_DEFAULT_ACCOUNT),
    region: context('region') ?? (production ? undefined : process.env.CDK_DEFAULT_REGION),
  },
});

// cdk-nag 3 is a policy-validation plugin: any unacknowledged finding fails the synth.
Validations.of(app).addPlugins(
  new AwsSolutionsChecks(app, { verbose: true }),
  new ServerlessChecks(app, { verbose: true }),
);
