import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ArnFormat,
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';

/** Repository root: this file lives in <root>/lib/. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Shapes of the data files under lambdas/ (only data and entry paths are read from there). */
export interface FunctionSpec {
  name: string;
  entry: string;
  handler: string;
  kind: 'api' | 'task' | string;
  description?: string;
}
export interface StateMachineSpec {
  name: string;
  definition: string;
  /** ASL placeholder → name of a function in the catalogue (substituted with its ARN). */
  substitutions?: Record<string, string>;
}
export interface ScheduleSpec {
  name: string;
  /** Name of a function in the catalogue. */
  function: string;
  /** EventBridge Scheduler expression, e.g. rate(1 minute). */
  expression: string;
}
export interface Catalogue {
  functions: FunctionSpec[];
  stateMachines: StateMachineSpec[];
  schedules?: ScheduleSpec[];
}
export interface TableDesign {
  partitionKey: string;
  sortKey: string;
  timeToLiveAttribute: string;
  globalSecondaryIndexes: { indexName: string; partitionKey: string; sortKey: string }[];
}

function readJson<T>(relativePath: string): T {
  return JSON.parse(readFileSync(join(PROJECT_ROOT, relativePath), 'utf8')) as T;
}

export const loadCatalogue = (): Catalogue => readJson<Catalogue>('lambdas/functions.json');
export const loadTableDesign = (): TableDesign => readJson<TableDesign>('lambdas/adapters/dynamodb/table.json');

/** Lets CommonJS dependencies call `require` inside the ESM bundle. */
const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

export interface AssistedStackProps extends StackProps {
  stage: string;
  /** Managed base domain → Route53 hosted zone id (HOSTED_ZONES). */
  hostedZones?: Record<string, string>;
}

export class AssistedStack extends Stack {
  readonly table: dynamodb.Table;
  readonly functions: Record<string, nodejs.NodejsFunction> = {};
  readonly stateMachines: Record<string, sfn.StateMachine> = {};
  readonly api: apigateway.LambdaRestApi;

  constructor(scope: Construct, id: string, props: AssistedStackProps) {
    super(scope, id, props);
    const { stage } = props;
    const hostedZones = props.hostedZones ?? {};
    const ephemeral = stage === 'dev';
    const removalPolicy = ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    const catalogue = loadCatalogue();
    const design = loadTableDesign();

    // ---- DynamoDB: single table -------------------------------------------------------------
    const str = (name: string) => ({ name, type: dynamodb.AttributeType.STRING });
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: str(design.partitionKey),
      sortKey: str(design.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: design.timeToLiveAttribute,
      deletionProtection: !ephemeral,
      removalPolicy,
    });
    for (const gsi of design.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.indexName,
        partitionKey: str(gsi.partitionKey),
        sortKey: str(gsi.sortKey),
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }

    // ---- S3 buckets ------------------------------------------------------------------------
    const bucket = (id: string) =>
      new s3.Bucket(this, id, {
        encryption: s3.BucketEncryption.S3_MANAGED,
        blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
        enforceSSL: true,
        removalPolicy,
      });
    const buckets = { files: bucket('FilesBucket'), images: bucket('ImagesBucket'), logs: bucket('LogsBucket') };

    // ---- State machine ARNs, known before the machines exist ---------------------------------
    // Functions carry STATE_MACHINES and the machines invoke functions: naming the machines and
    // formatting their ARNs (instead of Ref) avoids a dependency cycle in CloudFormation.
    const machineName = (name: string) => `${this.stackName}-${name}`;
    const machineArn = (name: string, resource: 'stateMachine' | 'execution' = 'stateMachine') =>
      this.formatArn({
        service: 'states',
        resource,
        resourceName: resource === 'execution' ? `${machineName(name)}:*` : machineName(name),
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
    const stateMachinesEnv = Object.fromEntries(catalogue.stateMachines.map((m) => [m.name, machineArn(m.name)]));

    // ---- Lambda functions --------------------------------------------------------------------
    const environment: Record<string, string> = {
      TABLE_NAME: this.table.tableName,
      FILES_BUCKET: buckets.files.bucketName,
      IMAGES_BUCKET: buckets.images.bucketName,
      LOGS_BUCKET: buckets.logs.bucketName,
      STATE_MACHINES: this.toJsonString(stateMachinesEnv),
      HOSTED_ZONES: JSON.stringify(hostedZones),
      POWERTOOLS_SERVICE_NAME: 'assisted-cloud',
      POWERTOOLS_METRICS_NAMESPACE: 'AssistedCloud',
      NODE_OPTIONS: '--enable-source-maps',
    };

    for (const spec of catalogue.functions) {
      const isApi = spec.kind === 'api';
      const logGroup = new logs.LogGroup(this, `${spec.name}Logs`, {
        retention: logs.RetentionDays.ONE_MONTH,
        removalPolicy,
      });
      const fn = new nodejs.NodejsFunction(this, `${spec.name}Function`, {
        entry: join(PROJECT_ROOT, spec.entry),
        handler: spec.handler,
        description: spec.description,
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: 1024,
        // API Gateway gives up after 29 s; workflow tasks may run longer.
        timeout: isApi ? Duration.seconds(29) : Duration.minutes(5),
        tracing: lambda.Tracing.ACTIVE,
        logGroup,
        projectRoot: PROJECT_ROOT,
        depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
        environment: isApi ? { ...environment, OPENAPI_DOCUMENT: '/var/task/openapi.json' } : environment,
        bundling: {
          forceDockerBundling: false,
          format: nodejs.OutputFormat.ESM,
          target: 'node22',
          mainFields: ['module', 'main'],
          banner: REQUIRE_BANNER,
          sourceMap: true,
          // Bundle the pinned AWS SDK versions rather than relying on the runtime's copy.
          externalModules: [],
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (inputDir: string, outputDir: string) =>
              // JSON, converted at build time: parsing the YAML costs ~0.4 s of every cold start.
              isApi
                ? [`node --input-type=module -e "import {readFileSync,writeFileSync} from 'node:fs'; import {parse} from 'yaml'; writeFileSync(process.argv[2], JSON.stringify(parse(readFileSync(process.argv[1],'utf8'))))" "${inputDir}/openapi.yaml" "${outputDir}/openapi.json"`]
                : [],
          },
        },
      });
      this.table.grantReadWriteData(fn);
      for (const b of Object.values(buckets)) b.grantReadWrite(fn);
      if (catalogue.stateMachines.length > 0) {
        fn.addToRolePolicy(
          new iam.PolicyStatement({
            actions: ['states:StartExecution', 'states:SendTaskSuccess', 'states:SendTaskFailure', 'states:SendTaskHeartbeat'],
            resources: catalogue.stateMachines.map((m) => machineArn(m.name)),
          }),
        );
        fn.addToRolePolicy(
          new iam.PolicyStatement({
            actions: ['states:DescribeExecution', 'states:StopExecution'],
            resources: catalogue.stateMachines.map((m) => machineArn(m.name, 'execution')),
          }),
        );
      }
      const zoneIds = [...new Set(Object.values(hostedZones))];
      if (zoneIds.length > 0) {
        fn.addToRolePolicy(
          new iam.PolicyStatement({
            actions: ['route53:ChangeResourceRecordSets', 'route53:ListResourceRecordSets', 'route53:GetHostedZone'],
            resources: zoneIds.map((id) => `arn:${this.partition}:route53:::hostedzone/${id}`),
          }),
        );
      }
      this.functions[spec.name] = fn;
    }

    // ---- API Gateway -------------------------------------------------------------------------
    const apiSpec = catalogue.functions.find((f) => f.kind === 'api');
    if (!apiSpec) throw new Error('lambdas/functions.json has no function of kind "api"');
    this.api = new apigateway.LambdaRestApi(this, 'Api', {
      handler: this.functions[apiSpec.name]!,
      proxy: true,
      description: `Assisted Installer API (${stage})`,
      binaryMediaTypes: ['application/octet-stream', 'multipart/form-data', 'application/x-iso9660-image', 'application/gzip'],
      // The CloudWatch role is an account-wide singleton; leave it to the account's baseline.
      cloudWatchRole: false,
      deployOptions: {
        stageName: stage,
        throttlingRateLimit: 100,
        throttlingBurstLimit: 200,
        tracingEnabled: true,
      },
    });

    // ---- Step Functions ----------------------------------------------------------------------
    for (const spec of catalogue.stateMachines) {
      const targets = Object.entries(spec.substitutions ?? {}).map(([placeholder, functionName]) => {
        const fn = this.functions[functionName];
        if (!fn) throw new Error(`state machine ${spec.name}: no function ${functionName} in lambdas/functions.json`);
        return { placeholder, fn };
      });
      const machine = new sfn.StateMachine(this, `${pascal(spec.name)}StateMachine`, {
        stateMachineName: machineName(spec.name),
        definitionBody: sfn.DefinitionBody.fromFile(join(PROJECT_ROOT, spec.definition)),
        definitionSubstitutions: Object.fromEntries(targets.map((t) => [t.placeholder, t.fn.functionArn])),
        removalPolicy,
      });
      if (targets.length > 0) {
        machine.addToRolePolicy(
          new iam.PolicyStatement({
            actions: ['lambda:InvokeFunction'],
            resources: targets.map((t) => t.fn.functionArn),
          }),
        );
      }
      this.stateMachines[spec.name] = machine;
    }

    // The monitors: EventBridge Scheduler invokes the same handlers the local timers do.
    const schedules = catalogue.schedules ?? [];
    if (schedules.length > 0) {
      const schedulerRole = new iam.Role(this, 'SchedulerRole', { assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com') });
      for (const schedule of schedules) {
        const target = this.functions[schedule.function];
        if (!target) throw new Error(`schedule ${schedule.name} names unknown function ${schedule.function}`);
        target.grantInvoke(schedulerRole);
        new scheduler.CfnSchedule(this, `Schedule-${schedule.name}`, {
          name: `${this.stackName}-${schedule.name}`,
          scheduleExpression: schedule.expression,
          flexibleTimeWindow: { mode: 'OFF' },
          target: { arn: target.functionArn, roleArn: schedulerRole.roleArn, retryPolicy: { maximumRetryAttempts: 0 } },
        });
      }
    }

    new CfnOutput(this, 'ApiUrl', { value: this.api.url });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
  }
}

function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
