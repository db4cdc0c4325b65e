/**
 * CDK app: `npx cdk synth -c stage=staging`. Environment-agnostic (no account lookups), so synth
 * works offline; context keys are listed in docs/deploy.md. The stage defaults to "dev".
 */
import { App } from 'aws-cdk-lib';
import { AssistedStack } from '../lib/assisted-stack.js';
import { addComplianceChecks } from '../lib/compliance.js';
import { stageConfigFromContext } from '../lib/stage-config.js';

const app = new App();
const config = stageConfigFromContext((key) => app.node.tryGetContext(key));

new AssistedStack(app, `AssistedCloud-${config.stage}`, {
  config,
  description: `OpenShift Assisted Installer as a serverless service (${config.stage})`,
  tags: { project: 'assisted-cloud', stage: config.stage },
});
addComplianceChecks(app);

app.synth();
