import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CompanyDataStack } from './stack';

const STAGE_PATTERN = /^[a-z][a-z0-9-]{1,20}$/;

const app = new App();

const stage: unknown = app.node.tryGetContext('stage') ?? 'dev';
if (typeof stage !== 'string' || !STAGE_PATTERN.test(stage)) {
  throw new Error(
    `-c stage=${String(stage)} must match ${STAGE_PATTERN.source} (it names the stack and API)`,
  );
}

new CompanyDataStack(app, `CompanyData-${stage}`, {
  stage,
  // Unset without AWS credentials: the stack is then environment-agnostic, which is enough to synth.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});

// cdk-nag 3 is a policy-validation plugin: any unacknowledged finding fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
