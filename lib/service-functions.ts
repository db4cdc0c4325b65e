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
import type { FunctionSpec } from './catalogue.js';
import type { LogLevel } from './stage-config.js';
import type { StateMachineNames } from './workflows.js';

/**
 * The function discovery agents call through its function URL: the REST API function's code and
 * grants, its own sizing, tracing and metrics (lib/assisted-stack.ts hands its URL to agents).
 */
export const AGENT_API_FUNCTION = 'AgentApi';

/** The functions that answer the operations of openapi.yaml: people's (behind API Gateway) and the agents'. */
export function servesRestApi(name: string): boolean {
  return name === REST_API_FUNCTION || name === AGENT_API_FUNCTION;
}

/**
 * Memory per function. Below 1,769 MB Lambda gives a function CPU in proportion to its memory, so a
 * handler's own (CPU) time costs the same GB-seconds at any size there, and a smaller size only
 * saves on the time spent waiting for DynamoDB and S3 while making each request slower (docs/deploy.md,
 * "Function bundles and cold starts", has the measurements behind the sizes below).
 * - functions whose invocations grow with connected hosts (the agents' API, the stream, the
 *   monitor): 512 MB, several times the memory they use; half that would bring a cold start close
 *   to Lambda's 10 s init limit to save little;
 * - people's API, the image service and the workflow tasks: 1,024 MB, as before: they are called
 *   rarely and someone waits on them (the console), or they handle install files (ignition, ISOs).
 */
export function memoryFor(spec: Pick<FunctionSpec, 'name' | 'kind'>): number {
  return spec.name === AGENT_API_FUNCTION || spec.kind === 'stream' || spec.kind === 'monitor' ? 512 : 1024;
}

/**
 * Active tracing records a sample of invocations that arrive without a sampling decision (Lambda's
 * fixed rule: one a second, then 5 %); PassThrough records only those a traced caller sampled. The
 * agents' polls (a function URL passes no decision) and the stream's batches arrive tens of times a
 * second at 1,000 hosts, where Lambda's rule alone would record ~5 million traces a month ($25 or
 * more each): they pass through. People's requests are sampled by API Gateway's rule, workflow
 * tasks by Step Functions'.
 */
export function tracingFor(spec: Pick<FunctionSpec, 'name' | 'kind'>): lambda.Tracing {
  return spec.name === AGENT_API_FUNCTION || spec.kind === 'stream' ? lambda.Tracing.PASS_THROUGH : lambda.Tracing.ACTIVE;
}

/**
 * Powertools publishes its metrics as one embedded-metric log line per invocation (~200 bytes: an
 * Invocations count AWS/Lambda already has, and a rejected or failed request): for the functions
 * called per poll that is a log line per poll, so they publish none. Their failures still show in
 * AWS/Lambda's free metrics (Errors; Url4xxCount and Url5xxCount of the function URL) and in the
 * error log lines.
 */
function publishesMetrics(spec: Pick<FunctionSpec, 'name' | 'kind'>): boolean {
  return !(spec.name === AGENT_API_FUNCTION || spec.kind === 'stream');
}

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
  /** Whether agents get a function of their own (context agentEndpoint function-url). */
  agentFunction: boolean;
  /** Its reserved concurrency; 0 reserves none. */
  agentConcurrency: number;
  logLevel: LogLevel;
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
  const restApiSpec = catalogue.functions.find((f) => f.name === REST_API_FUNCTION && f.kind === 'api');
  if (!restApiSpec) throw new Error(`lambdas/functions.json has no function ${REST_API_FUNCTION} of kind "api"`);
  const agentSpec: FunctionSpec = {
    ...restApiSpec,
    name: AGENT_API_FUNCTION,
    description: 'REST API v2 for discovery agents (function URL): routes every operation of openapi.yaml',
  };
  // Lambda's own START/END/REPORT lines are INFO: at WARN and above the platform logs only its problems.
  const systemLogLevel = props.logLevel === 'DEBUG' || props.logLevel === 'INFO' ? lambda.SystemLogLevel.INFO : lambda.SystemLogLevel.WARN;
  for (const spec of [...catalogue.functions, ...(props.agentFunction ? [agentSpec] : [])]) {
    const isApi = spec.kind === 'api';
    const isRestApi = servesRestApi(spec.name);
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
      memorySize: memoryFor(spec),
      // API Gateway gives up after 29 s; workflow tasks may run longer.
      timeout: isApi ? Duration.seconds(29) : Duration.minutes(5),
      tracing: tracingFor(spec),
      // The agents' function URL has no other throttle: this caps what a flood of requests can run.
      reservedConcurrentExecutions: spec.name === AGENT_API_FUNCTION && props.agentConcurrency > 0 ? props.agentConcurrency : undefined,
      role,
      logGroup,
      // JSON lines Lambda filters by their level: Powertools' own, and Lambda's platform lines.
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel[props.logLevel],
      systemLogLevelV2: systemLogLevel,
      environment: {
        ...environment,
        POWERTOOLS_LOG_LEVEL: props.logLevel,
        ...(publishesMetrics(spec) ? {} : { POWERTOOLS_METRICS_DISABLED: 'true' }),
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
