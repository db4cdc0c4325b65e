/** One Lambda function per entry of lambdas/functions.json, each with its own role and only the grants it needs. */
import { Duration, type RemovalPolicy, type Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { grantBaseImageReads, grantOrganisationObjects, type ServiceBuckets } from './buckets.js';
import { bundledCode } from './bundle.js';
import { PROJECT_ROOT, type Catalogue, type TableDesign } from './catalogue.js';
import { TABLE_ACTIONS, tableResources } from './data-table.js';
import { acknowledgeRuntime, lambdaRole } from './lambda-role.js';
import { nagFormattedArn } from './nag-ids.js';
import { API_PATH_PREFIXES, REST_API_FUNCTION } from './rest-api.js';
import type { AgentSigningKey } from './signing-key/signing-key.js';
import type { StateMachineNames } from './workflows.js';

export interface ServiceFunctionsProps {
  catalogue: Catalogue;
  /** Environment shared by functions and containers. */
  environment: Record<string, string>;
  table: dynamodb.ITable;
  design: TableDesign;
  buckets: ServiceBuckets;
  signingKey: AgentSigningKey;
  hostedZones: Record<string, string>;
  stateMachines: StateMachineNames;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
}

/** The functions by name, in the stack's own scope (their logical ids stay what they were). */
export function addServiceFunctions(stack: Stack, props: ServiceFunctionsProps): Record<string, lambda.Function> {
  const { catalogue, environment, buckets, signingKey, logRetention, removalPolicy } = props;
  const functions: Record<string, lambda.Function> = {};
  const serviceBuckets = [buckets.files, buckets.images, buckets.logs];
  const zoneArns = [...new Set(Object.values(props.hostedZones))].map((zoneId) => `arn:${stack.partition}:route53:::hostedzone/${zoneId}`);
  const tableArns = tableResources(props.table, props.design);
  const executionArns = catalogue.stateMachines.map((m) => props.stateMachines.arn(m.name, 'execution'));
  const codes = new Map<string, lambda.Code>();
  for (const spec of catalogue.functions) {
    const isApi = spec.kind === 'api';
    const isRestApi = spec.name === REST_API_FUNCTION;
    if (isApi && !isRestApi && !API_PATH_PREFIXES[spec.name]) {
      throw new Error(`function ${spec.name} is of kind "api" but lib/rest-api.ts API_PATH_PREFIXES gives it no path`);
    }
    const logGroup = new logs.LogGroup(stack, `${spec.name}Logs`, { retention: logRetention, removalPolicy });
    const role = lambdaRole(stack, `${spec.name}Role`, logGroup, true);
    const codeKey = `${spec.entry}${isRestApi ? '+openapi' : ''}`;
    let code = codes.get(codeKey);
    if (!code) codes.set(codeKey, (code = bundledCode(PROJECT_ROOT, spec.entry, { openApiDocument: isRestApi })));
    const fn = new lambda.Function(stack, `${spec.name}Function`, {
      code,
      handler: `index.${spec.handler}`,
      description: spec.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 1024,
      // API Gateway gives up after 29 s; workflow tasks may run longer.
      timeout: isApi ? Duration.seconds(29) : Duration.minutes(5),
      tracing: lambda.Tracing.ACTIVE,
      role,
      logGroup,
      environment: {
        ...environment,
        ...(isRestApi ? { OPENAPI_DOCUMENT: '/var/task/openapi.json' } : {}),
        ...(isApi ? { EC_PRIVATE_KEY_SECRET_ARN: signingKey.secret.secretArn } : {}),
      },
    });
    acknowledgeRuntime(fn);
    role.addToPolicy(new iam.PolicyStatement({ actions: TABLE_ACTIONS, resources: tableArns }));
    for (const b of serviceBuckets) grantOrganisationObjects(role, b);
    grantBaseImageReads(role, buckets.images);
    // Only the API functions issue and check agent tokens (the image service embeds them in images).
    if (isApi) signingKey.secret.grantRead(role);
    if (catalogue.stateMachines.length > 0) {
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['states:StartExecution', 'states:SendTaskSuccess', 'states:SendTaskFailure', 'states:SendTaskHeartbeat'],
          resources: catalogue.stateMachines.map((m) => props.stateMachines.arn(m.name)),
        }),
      );
      role.addToPolicy(new iam.PolicyStatement({ actions: ['states:DescribeExecution', 'states:StopExecution'], resources: executionArns }));
      for (const m of catalogue.stateMachines) {
        Validations.of(role).acknowledge({
          id: `AwsSolutions-IAM5[Resource::${nagFormattedArn('states', `execution:${props.stateMachines.name(m.name)}:*`)}]`,
          reason: `Executions of the ${m.name} workflow are named at start time (one per cluster or attempt); the grant covers that one state machine's executions.`,
        });
      }
    }
    if (zoneArns.length > 0) {
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['route53:ChangeResourceRecordSets', 'route53:ListResourceRecordSets', 'route53:GetHostedZone'],
          resources: zoneArns,
        }),
      );
    }
    functions[spec.name] = fn;
  }
  return functions;
}
