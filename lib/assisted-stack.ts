import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArnFormat, type CfnElement, CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { ServiceAlarms } from './alarms.js';
import { ConsoleSite } from './console-site.js';
import { bundledCode } from './bundle.js';
import { InstallerNetwork, InstallerTask, ORGANISATION_OBJECTS } from './installer-task.js';
import { acknowledgeRuntime, lambdaRole } from './lambda-role.js';
import { nagArn, nagFormattedArn } from './nag-ids.js';
import { AgentSigningKey } from './signing-key/signing-key.js';
import type { StageConfig } from './stage-config.js';

/** Repository root: this file lives in <root>/lib/. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Shapes of the data files under lambdas/ (only data and entry paths are read from there). */
export interface FunctionSpec {
  name: string;
  entry: string;
  handler: string;
  kind: 'api' | 'task' | 'monitor' | string;
  description?: string;
}
export interface StateMachineSpec {
  name: string;
  definition: string;
  /**
   * ASL placeholder → what replaces it: the name of a function (its ARN), or `container:<Name>`
   * (task definition ARN), `containerCluster:<Name>` (ECS cluster ARN), `containerSubnets:<Name>` and
   * `containerSecurityGroups:<Name>` (JSON arrays of ids, substituted raw).
   */
  substitutions?: Record<string, string>;
}
export interface ScheduleSpec {
  name: string;
  /** Name of a function in the catalogue. */
  function: string;
  /** EventBridge Scheduler expression, e.g. rate(1 minute). */
  expression: string;
}
export interface ContainerSpec {
  name: string;
  entry: string;
  description?: string;
}
export interface Catalogue {
  functions: FunctionSpec[];
  stateMachines: StateMachineSpec[];
  schedules?: ScheduleSpec[];
  containers?: ContainerSpec[];
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

/**
 * Binary media types of the REST API. API Gateway decides whether to decode a base64 Lambda answer
 * from the request's first Accept type, and agents, curl and browsers send `*∕*`: only a wildcard
 * entry makes ISO, kubeconfig and log downloads arrive as bytes. The price is that every request body
 * reaches the function base64-encoded, which the API middleware decodes (rawBody), multipart/form-data
 * and application/octet-stream uploads included.
 */
export const BINARY_MEDIA_TYPES = ['*/*'];

/**
 * Functions of kind "api" besides the REST API itself, and the path each serves (as the local gateway
 * routes them, bin/local/runtime.ts). A new kind-"api" function without an entry here fails synth
 * rather than going unrouted.
 */
export const API_PATH_PREFIXES: Record<string, string> = { Images: 'api/assisted-images' };
/** The function answering every other path: the operations of openapi.yaml. */
export const REST_API_FUNCTION = 'Api';
/** Organisation-independent objects of the images bucket: base ISOs and boot artifacts (bin/import-base-iso.ts writes them). */
export const BASE_IMAGE_OBJECTS = 'base-images/*';

/** Placeholder forms of lambdas/functions.json state machine substitutions that name a container. */
const CONTAINER_SUBSTITUTION = /^(container|containerCluster|containerSubnets|containerSecurityGroups):(.+)$/;

export interface AssistedStackProps extends StackProps {
  config: StageConfig;
}

export class AssistedStack extends Stack {
  readonly config: StageConfig;
  readonly table: dynamodb.Table;
  readonly buckets: { files: s3.Bucket; images: s3.Bucket; logs: s3.Bucket; access: s3.Bucket };
  readonly functions: Record<string, lambda.Function> = {};
  readonly stateMachines: Record<string, sfn.StateMachine> = {};
  readonly containers: Record<string, InstallerTask> = {};
  readonly api: apigateway.LambdaRestApi;
  readonly signingKey: AgentSigningKey;
  readonly site: ConsoleSite;
  readonly alarms: ServiceAlarms;
  readonly hostedZones: Record<string, string>;

  constructor(scope: Construct, id: string, props: AssistedStackProps) {
    super(scope, id, props);
    const config = (this.config = props.config);
    const { stage, ephemeral } = config;
    const removalPolicy = ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    const logRetention = retentionDays(config.logRetentionDays);
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
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
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
    Validations.of(this.table).acknowledge({
      id: 'AwsSolutions-DDB4',
      reason: 'Point-in-time recovery (35 days, continuous) is the backup of this table; an AWS Backup plan would add cost and no recovery point PITR lacks for staging.',
    });

    // ---- S3 buckets ------------------------------------------------------------------------
    // Server access logs of the other buckets and CloudFront's logs. CloudFront standard logging
    // writes with ACLs, hence object-writer ownership on this bucket only.
    const access = new s3.Bucket(this, 'AccessLogsBucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(config.logRetentionDays) }],
      removalPolicy,
    });
    Validations.of(access).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access log bucket itself; logging its own access would log every log delivery.',
    });
    const bucket = (bucketId: string, prefix: string, lifecycleRules: s3.LifecycleRule[]) =>
      new s3.Bucket(this, bucketId, {
        encryption: s3.BucketEncryption.S3_MANAGED,
        blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
        enforceSSL: true,
        serverAccessLogsBucket: access,
        serverAccessLogsPrefix: `s3/${prefix}/`,
        lifecycleRules: [{ id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) }, ...lifecycleRules],
        // Object URLs are pre-signed for downloads; browsers on the console domain fetch them.
        cors: [{ allowedMethods: [s3.HttpMethods.GET, s3.HttpMethods.HEAD], allowedOrigins: ['*'], maxAge: 3600 }],
        removalPolicy,
      });
    this.buckets = {
      files: bucket('FilesBucket', 'files', []),
      images: bucket('ImagesBucket', 'images', [
        // Discovery images are rebuilt on demand; what is not downloaded for a while is stale.
        { id: 'expire-stale-images', prefix: 'orgs/', expiration: Duration.days(config.imageRetentionDays) },
      ]),
      logs: bucket('LogsBucket', 'logs', [
        { id: 'expire-cluster-logs', prefix: 'orgs/', expiration: Duration.days(config.clusterLogRetentionDays) },
      ]),
      access,
    };
    const serviceBuckets = [this.buckets.files, this.buckets.images, this.buckets.logs];

    // ---- Route53: managed base domains -----------------------------------------------------
    const createdZones = Object.fromEntries(
      config.baseDomains.map((domain) => {
        const zone = new route53.PublicHostedZone(this, `Zone-${domain}`, {
          zoneName: domain,
          comment: `assisted-cloud managed base domain (${stage})`,
        });
        zone.applyRemovalPolicy(removalPolicy);
        new CfnOutput(this, `NameServers-${domain.replace(/[^A-Za-z0-9]/g, '')}`, {
          value: this.toJsonString(zone.hostedZoneNameServers),
          description: `Delegate ${domain} to these name servers`,
        });
        return [domain, zone.hostedZoneId];
      }),
    );
    this.hostedZones = { ...config.hostedZones, ...createdZones };

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

    // ---- Environment shared by functions and containers -------------------------------------
    const environment: Record<string, string> = {
      TABLE_NAME: this.table.tableName,
      FILES_BUCKET: this.buckets.files.bucketName,
      IMAGES_BUCKET: this.buckets.images.bucketName,
      LOGS_BUCKET: this.buckets.logs.bucketName,
      STATE_MACHINES: this.toJsonString(stateMachinesEnv),
      HOSTED_ZONES: this.toJsonString(this.hostedZones),
      POWERTOOLS_SERVICE_NAME: 'assisted-cloud',
      POWERTOOLS_METRICS_NAMESPACE: 'AssistedCloud',
      NODE_OPTIONS: '--enable-source-maps',
    };

    // ---- Agent signing key -------------------------------------------------------------------
    this.signingKey = new AgentSigningKey(this, 'AgentSigningKey', { projectRoot: PROJECT_ROOT, removalPolicy, logRetention });

    // ---- Lambda functions --------------------------------------------------------------------
    const zoneArns = [...new Set(Object.values(this.hostedZones))].map((zoneId) => `arn:${this.partition}:route53:::hostedzone/${zoneId}`);
    // The table and each index by name: the GSIs are known (table.json), so no index/* wildcard.
    const tableResources = [this.table.tableArn, ...design.globalSecondaryIndexes.map((gsi) => `${this.table.tableArn}/index/${gsi.indexName}`)];
    const executionArns = catalogue.stateMachines.map((m) => machineArn(m.name, 'execution'));
    const codes = new Map<string, lambda.Code>();
    for (const spec of catalogue.functions) {
      const isApi = spec.kind === 'api';
      const isRestApi = spec.name === REST_API_FUNCTION;
      if (isApi && !isRestApi && !API_PATH_PREFIXES[spec.name]) {
        throw new Error(`function ${spec.name} is of kind "api" but lib/assisted-stack.ts API_PATH_PREFIXES gives it no path`);
      }
      const logGroup = new logs.LogGroup(this, `${spec.name}Logs`, { retention: logRetention, removalPolicy });
      const role = lambdaRole(this, `${spec.name}Role`, logGroup, true);
      const codeKey = `${spec.entry}${isRestApi ? '+openapi' : ''}`;
      let code = codes.get(codeKey);
      if (!code) codes.set(codeKey, (code = bundledCode(PROJECT_ROOT, spec.entry, { openApiDocument: isRestApi })));
      const fn = new lambda.Function(this, `${spec.name}Function`, {
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
          ...(isApi ? { EC_PRIVATE_KEY_SECRET_ARN: this.signingKey.secret.secretArn } : {}),
        },
      });
      acknowledgeRuntime(fn);
      role.addToPolicy(new iam.PolicyStatement({ actions: TABLE_ACTIONS, resources: tableResources }));
      for (const b of serviceBuckets) grantOrganisationObjects(role, b);
      grantBaseImageReads(role, this.buckets.images);
      // Only the API functions issue and check agent tokens (the image service embeds them in images).
      if (isApi) this.signingKey.secret.grantRead(role);
      if (catalogue.stateMachines.length > 0) {
        role.addToPolicy(
          new iam.PolicyStatement({
            actions: ['states:StartExecution', 'states:SendTaskSuccess', 'states:SendTaskFailure', 'states:SendTaskHeartbeat'],
            resources: catalogue.stateMachines.map((m) => machineArn(m.name)),
          }),
        );
        role.addToPolicy(new iam.PolicyStatement({ actions: ['states:DescribeExecution', 'states:StopExecution'], resources: executionArns }));
        for (const m of catalogue.stateMachines) {
          Validations.of(role).acknowledge({
            id: `AwsSolutions-IAM5[Resource::${nagFormattedArn('states', `execution:${machineName(m.name)}:*`)}]`,
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
      this.functions[spec.name] = fn;
    }

    // ---- API Gateway -------------------------------------------------------------------------
    const apiSpec = catalogue.functions.find((f) => f.name === REST_API_FUNCTION && f.kind === 'api');
    if (!apiSpec) throw new Error(`lambdas/functions.json has no function ${REST_API_FUNCTION} of kind "api"`);
    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', { retention: logRetention, removalPolicy });
    this.api = new apigateway.LambdaRestApi(this, 'Api', {
      handler: this.functions[apiSpec.name]!,
      // Routes are added below: the REST API function everywhere but the other API functions' prefixes.
      proxy: false,
      description: `Assisted Installer API (${stage})`,
      binaryMediaTypes: BINARY_MEDIA_TYPES,
      // Access and execution logs need API Gateway's account-wide CloudWatch role.
      cloudWatchRole: config.manageApiGatewayAccountRole,
      // Account-wide: another stack's API may rely on it after this stack is gone.
      cloudWatchRoleRemovalPolicy: config.manageApiGatewayAccountRole ? RemovalPolicy.RETAIN : undefined,
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      deployOptions: {
        stageName: stage,
        throttlingRateLimit: config.apiRateLimit,
        throttlingBurstLimit: config.apiBurstLimit,
        tracingEnabled: true,
        metricsEnabled: true,
        // Errors only, and never bodies: requests carry pull secrets and tokens.
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields({
          caller: false,
          httpMethod: true,
          ip: true,
          protocol: true,
          requestTime: true,
          resourcePath: true,
          responseLength: true,
          status: true,
          user: false,
        }),
      },
    });
    // Every path goes to the REST API function, except the prefixes of the other API functions. Each
    // parent of such a prefix gets its own {proxy+} too, so no path depends on API Gateway falling
    // back from a partly matching resource to the root's.
    this.api.root.addMethod('ANY');
    this.api.root.addProxy({ anyMethod: true });
    for (const spec of catalogue.functions) {
      const prefix = API_PATH_PREFIXES[spec.name];
      if (spec.kind !== 'api' || !prefix) continue;
      const segments = prefix.split('/');
      for (let depth = 1; depth < segments.length; depth++) {
        const parent = this.api.root.resourceForPath(segments.slice(0, depth).join('/'));
        if (!parent.getResource('{proxy+}')) parent.addProxy({ anyMethod: true });
      }
      this.api.root.resourceForPath(prefix).addProxy({ defaultIntegration: new apigateway.LambdaIntegration(this.functions[spec.name]!), anyMethod: true });
    }
    for (const method of this.api.methods) {
      Validations.of(method).acknowledge(
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'Authorization is the function\'s: openapi.yaml security schemes, checked by the API handler (API tokens as Bearer, agent tokens as X-Secret-Key), as upstream assisted-service does; an API Gateway authorizer cannot read our token table cheaper.',
        },
        {
          id: 'AwsSolutions-COG4',
          reason: 'Users and agents authenticate with the service\'s own API and agent tokens, not Cognito (see AwsSolutions-APIG4).',
        },
      );
    }
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason: 'The API function validates every request against openapi.yaml (openapi-backend) before any use case runs; a second, API Gateway copy of the schema would drift from it.',
    });
    Validations.of(this.api.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason: 'No WAF in staging: managed rule groups reject the large bodies agents post and cost more than the stage; the stage throttles (rate/burst context) and every operation authenticates.',
    });

    // ---- Console and API behind one CloudFront domain -----------------------------------------
    this.site = new ConsoleSite(this, 'Console', {
      projectRoot: PROJECT_ROOT,
      api: this.api,
      apiStageName: stage,
      accessLogs: access,
      domainName: config.domainName,
      certificateArn: config.certificateArn,
      removalPolicy,
      logGroup: new logs.LogGroup(this, 'ConsoleDeploymentLogs', { retention: logRetention, removalPolicy }),
    });
    const publicUrl = `https://${config.domainName ?? this.site.distribution.distributionDomainName}`;
    for (const fn of Object.values(this.functions)) fn.addEnvironment('PUBLIC_URL', publicUrl);

    // ---- Containers: ECS Fargate tasks started by the workflows --------------------------------
    const containerSpecs = catalogue.containers ?? [];
    let network: InstallerNetwork | undefined;
    let cluster: ecs.Cluster | undefined;
    if (containerSpecs.length > 0) {
      network = new InstallerNetwork(this, 'InstallerNetwork', { imported: config.vpc, removalPolicy, logRetention });
      cluster = new ecs.Cluster(this, 'InstallerCluster', {
        vpc: network.vpc,
        containerInsightsV2: ecs.ContainerInsights.ENABLED,
      });
      for (const spec of containerSpecs) {
        this.containers[spec.name] = new InstallerTask(this, `${spec.name}Container`, {
          entry: spec.entry,
          description: spec.description,
          projectRoot: PROJECT_ROOT,
          cluster,
          // Lambda sets AWS_REGION itself; a Fargate task gets it from us.
          environment: { ...environment, PUBLIC_URL: publicUrl, AWS_REGION: this.region },
          filesBucket: this.buckets.files,
          logRetention,
          removalPolicy,
          image: config.installerImage,
        });
      }
    }

    // ---- Step Functions ----------------------------------------------------------------------
    for (const spec of catalogue.stateMachines) {
      const invoked: lambda.IFunction[] = [];
      const started: InstallerTask[] = [];
      const substitutions: Record<string, string> = {};
      for (const [placeholder, target] of Object.entries(spec.substitutions ?? {})) {
        const containerTarget = CONTAINER_SUBSTITUTION.exec(target);
        if (!containerTarget) {
          const fn = this.functions[target];
          if (!fn) throw new Error(`state machine ${spec.name}: no function ${target} in lambdas/functions.json`);
          invoked.push(fn);
          substitutions[placeholder] = fn.functionArn;
          continue;
        }
        const [, form, name] = containerTarget;
        const task = this.containers[name!];
        if (!task || !network || !cluster) throw new Error(`state machine ${spec.name}: no container ${name} in lambdas/functions.json`);
        if (form === 'container') {
          started.push(task);
          substitutions[placeholder] = task.taskDefinition.taskDefinitionArn;
        } else if (form === 'containerCluster') {
          substitutions[placeholder] = cluster.clusterArn;
        } else if (form === 'containerSubnets') {
          substitutions[placeholder] = this.toJsonString(network.subnets.map((subnet) => subnet.subnetId));
        } else {
          substitutions[placeholder] = this.toJsonString([network.securityGroup.securityGroupId]);
        }
      }

      const machine = new sfn.StateMachine(this, `${pascal(spec.name)}StateMachine`, {
        stateMachineName: machineName(spec.name),
        definitionBody: sfn.DefinitionBody.fromFile(join(PROJECT_ROOT, spec.definition)),
        definitionSubstitutions: substitutions,
        tracingEnabled: true,
        logs: {
          destination: new logs.LogGroup(this, `${pascal(spec.name)}StateMachineLogs`, { retention: logRetention, removalPolicy }),
          level: sfn.LogLevel.ALL,
          // States' inputs and outputs carry install-config.yaml paths and ids, never logged in full.
          includeExecutionData: false,
        },
        removalPolicy,
      });
      if (invoked.length > 0) {
        machine.addToRolePolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: invoked.map((fn) => fn.functionArn) }));
      }
      for (const task of started) this.allowRunTaskSync(machine, task, cluster!);
      this.stateMachines[spec.name] = machine;
    }

    // ---- Schedules: the monitors --------------------------------------------------------------
    // EventBridge Scheduler invokes the same handlers the local timers do.
    const schedules = catalogue.schedules ?? [];
    if (schedules.length > 0) {
      const schedulerRole = new iam.Role(this, 'SchedulerRole', { assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com') });
      for (const schedule of schedules) {
        const target = this.functions[schedule.function];
        if (!target) throw new Error(`schedule ${schedule.name} names unknown function ${schedule.function}`);
        // The function itself, not its versions (grantInvoke would add <arn>:*).
        schedulerRole.addToPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [target.functionArn] }));
        new scheduler.CfnSchedule(this, `Schedule-${schedule.name}`, {
          name: `${this.stackName}-${schedule.name}`,
          scheduleExpression: schedule.expression,
          flexibleTimeWindow: { mode: 'OFF' },
          target: { arn: target.functionArn, roleArn: schedulerRole.roleArn, retryPolicy: { maximumRetryAttempts: 0 } },
        });
      }
    }

    // ---- Alarms -------------------------------------------------------------------------------
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      functions: this.functions,
      stateMachines: this.stateMachines,
      api: this.api,
      table: this.table,
      email: config.alarmEmail,
    });

    this.acknowledgeGeneratedPolicies();

    new CfnOutput(this, 'Url', { value: publicUrl, description: 'Console and API (…/api/assisted-install/v2)' });
    new CfnOutput(this, 'CloudFrontDomain', { value: this.site.distribution.distributionDomainName, description: 'Point the custom domain here (CNAME or alias)' });
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'API Gateway stage URL (direct, without CloudFront)' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'AlarmTopic', { value: this.alarms.topic.topicArn });
    new CfnOutput(this, 'AgentSigningKeySecret', { value: this.signingKey.secret.secretArn });
  }

  /**
   * What `arn:aws:states:::ecs:runTask.sync` needs: run this task definition, pass its two roles to
   * ECS, watch and stop its tasks, and the managed EventBridge rule Step Functions uses to learn
   * that a task stopped.
   */
  private allowRunTaskSync(machine: sfn.StateMachine, task: InstallerTask, cluster: ecs.ICluster): void {
    const taskDefinition = task.taskDefinition;
    machine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ecs:RunTask'],
        resources: [taskDefinition.taskDefinitionArn],
        conditions: { ArnEquals: { 'ecs:cluster': cluster.clusterArn } },
      }),
    );
    machine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ecs:StopTask', 'ecs:DescribeTasks'],
        resources: [this.formatArn({ service: 'ecs', resource: 'task', resourceName: `${cluster.clusterName}/*` })],
      }),
    );
    Validations.of(machine.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagFormattedArn('ecs', `task/<${this.getLogicalId(cluster.node.defaultChild as CfnElement)}>/*`)}]`,
      reason: 'ecs:DescribeTasks and ecs:StopTask for runTask.sync: task ids are only known once the task runs; the grant covers tasks of the installer cluster only.',
    });
    machine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [taskDefinition.taskRole.roleArn, taskDefinition.obtainExecutionRole().roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
      }),
    );
    machine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['events:PutTargets', 'events:PutRule', 'events:DescribeRule'],
        resources: [this.formatArn({ service: 'events', resource: 'rule', resourceName: 'StepFunctionsGetEventsForECSTaskRule' })],
      }),
    );
  }

  /**
   * cdk-nag findings on policies CDK or AWS write for us, each acknowledged with its reason. The
   * findings are per resource and per wildcard, so a new wildcard still fails synth.
   */
  private acknowledgeGeneratedPolicies(): void {
    const deploymentFunction = this.node.children.find((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'));
    if (deploymentFunction) {
      const reason = (what: string) =>
        `CDK's BucketDeployment function (aws-cdk-lib s3-deployment) copies the console build from the CDK asset bucket into the console bucket and invalidates CloudFront: ${what}`;
      Validations.of(deploymentFunction).acknowledge(
        { id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', reason: reason('it comes with the managed basic execution role.') },
        { id: 'AwsSolutions-L1', reason: reason('its Python runtime is chosen by aws-cdk-lib.') },
        ...['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'].map((action) => ({
          id: `AwsSolutions-IAM5[Action::${action}]`,
          reason: reason(`${action} is part of the sync (aws s3 sync --delete), limited to the two buckets.`),
        })),
        { id: `AwsSolutions-IAM5[Resource::${nagArn(this.site.bucket)}/*]`, reason: reason('it replaces every object of the console bucket.') },
        {
          id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
          reason: reason('it reads the staged console asset, whose key is a content hash.'),
        },
        { id: 'AwsSolutions-IAM5[Resource::*]', reason: reason('cloudfront:CreateInvalidation and GetInvalidation are granted on "*" by CDK.') },
      );
    }
    if (this.config.manageApiGatewayAccountRole) {
      Validations.of(this.api).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: 'The account-wide API Gateway logging role uses the AWS policy made for it; API Gateway, not our code, assumes it.',
      });
    }
    for (const [name, machine] of Object.entries(this.stateMachines)) {
      Validations.of(machine.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: `Workflow ${name}: CloudWatch Logs delivery (logs:CreateLogDelivery and friends) and X-Ray tracing (xray:PutTraceSegments) support no resource-level permissions.`,
      });
    }
  }
}

/** What the DynamoDB store adapter does: items, queries, batches and transactions of them; no scans, no streams. */
const TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
];

/**
 * Object access under orgs/ (every key the service writes starts there: lambdas/domain/object-keys.ts),
 * listing only below it. Multipart uploads (UploadPartCopy in compose) are PutObject plus Abort.
 */
function grantOrganisationObjects(role: iam.Role, bucket: s3.IBucket): void {
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
      resources: [bucket.arnForObjects(ORGANISATION_OBJECTS)],
    }),
  );
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['s3:ListBucket'],
      resources: [bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [ORGANISATION_OBJECTS] } },
    }),
  );
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${nagArn(bucket)}/${ORGANISATION_OBJECTS}]`,
    reason: 'Object keys name the organisation and cluster or infra-env, known only per request; the grant is limited to the organisation objects (orgs/*) of this bucket.',
  });
}

/** Base images are read (and copied from, server-side) by every image composition; only operators write them. */
function grantBaseImageReads(role: iam.Role, bucket: s3.IBucket): void {
  role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects(BASE_IMAGE_OBJECTS)] }));
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['s3:ListBucket'],
      resources: [bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [BASE_IMAGE_OBJECTS] } },
    }),
  );
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${nagArn(bucket)}/${BASE_IMAGE_OBJECTS}]`,
    reason: 'Read-only: base ISOs and boot artifacts per OpenShift version and architecture, chosen per request; every image composition reads and byte-range-copies from them.',
  });
}

function retentionDays(days: number): logs.RetentionDays {
  const known = Object.values(logs.RetentionDays).filter((value): value is number => typeof value === 'number');
  if (!known.includes(days)) throw new Error(`logRetentionDays ${days}: CloudWatch Logs retains for one of ${known.join(', ')} days`);
  return days as logs.RetentionDays;
}

function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
