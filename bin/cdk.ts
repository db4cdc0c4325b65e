/** CDK app: `npx cdk synth -c stage=prod`. Environment-agnostic; the stage defaults to "dev". */
import { App } from 'aws-cdk-lib';
import { AssistedStack } from '../lib/assisted-stack.js';

const app = new App();

const stage = String(app.node.tryGetContext('stage') ?? 'dev');
if (!/^[A-Za-z0-9-]+$/.test(stage)) throw new Error(`invalid stage "${stage}": use letters, digits and dashes`);

// `-c hostedZones='{"example.com":"Z123"}'` (a JSON map) or an object in cdk.json.
const rawZones: unknown = app.node.tryGetContext('hostedZones');
const hostedZones = (typeof rawZones === 'string' ? JSON.parse(rawZones) : rawZones ?? {}) as Record<string, string>;

new AssistedStack(app, `AssistedCloud-${stage}`, {
  stage,
  hostedZones,
  description: `OpenShift Assisted Installer as a serverless service (${stage})`,
});

app.synth();
