import { join } from 'node:path';
import { CustomResource, Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { bundledCode } from '../bundle.js';
import { acknowledgeRuntime, lambdaRole } from '../lambda-role.js';
import { nagArn } from '../nag-ids.js';

export interface AgentSigningKeyProps {
  projectRoot: string;
  removalPolicy: RemovalPolicy;
  logRetention: logs.RetentionDays;
}

/**
 * The ES256 key signing agent tokens (upstream's EC_PRIVATE_KEY_PEM), in Secrets Manager. The
 * secret is created with a throw-away password and a custom resource replaces it with a P-256 key
 * on the first deploy; later deploys keep the key.
 */
export class AgentSigningKey extends Construct {
  readonly secret: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: AgentSigningKeyProps) {
    super(scope, id);
    this.secret = new secretsmanager.Secret(this, 'Secret', {
      description: 'ES256 private key (PEM) signing agent tokens; made once by the stack, read by the API at cold start',
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating the agent signing key would invalidate every agent token already embedded in downloaded discovery images; rotation needs key overlap in the API first.',
    });

    const generatorLogs = new logs.LogGroup(this, 'GeneratorLogs', { retention: props.logRetention, removalPolicy: props.removalPolicy });
    const generator = new lambda.Function(this, 'Generator', {
      code: bundledCode(props.projectRoot, join('lib', 'signing-key', 'handler.ts')),
      handler: 'index.onEvent',
      description: 'Stores a P-256 agent signing key in its secret, once',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(30),
      role: lambdaRole(this, 'GeneratorRole', generatorLogs, false),
      logGroup: generatorLogs,
      environment: { NODE_OPTIONS: '--enable-source-maps' },
    });
    acknowledgeRuntime(generator);
    this.secret.grantRead(generator);
    this.secret.grantWrite(generator);

    const provider = new cr.Provider(this, 'Provider', {
      onEventHandler: generator,
      logGroup: new logs.LogGroup(this, 'ProviderLogs', { retention: props.logRetention, removalPolicy: props.removalPolicy }),
    });
    Validations.of(provider).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          'The custom resource framework function (aws-cdk-lib custom-resources Provider) comes with the managed basic execution role; it only relays CloudFormation events to the generator.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${nagArn(generator)}:*]`,
        reason: 'The Provider framework may invoke any version of the generator function it fronts (CDK grants <function>:*); nothing else.',
      },
      {
        id: 'AwsSolutions-L1',
        reason: "The Provider framework function's runtime is chosen by aws-cdk-lib and moves with it.",
      },
    );
    new CustomResource(this, 'Key', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::AgentSigningKey',
      properties: { SecretArn: this.secret.secretArn },
    });
  }
}
