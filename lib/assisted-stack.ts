import { CfnOutput, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { ServiceAlarms } from './alarms.js';
import { addServiceBuckets, type ServiceBuckets } from './buckets.js';
import { loadCatalogue, loadTableDesign, PROJECT_ROOT } from './catalogue.js';
import { ConsoleSite } from './console-site.js';
import { addDataTable } from './data-table.js';
import { SignIn } from './identity.js';
import { InstallerNetwork, InstallerTask } from './installer-task.js';
import { nagArn } from './nag-ids.js';
import { addRestApi } from './rest-api.js';
import { AGENT_API_FUNCTION, addServiceFunctions, servesRestApi } from './service-functions.js';
import { addTableStreams } from './table-streams.js';
import { addLiveApi } from './live-api.js';
import { AgentSigningKey } from './signing-key/signing-key.js';
import type { StageConfig } from './stage-config.js';
import { addSchedules, addStateMachines, stateMachineNames } from './workflows.js';

export { BASE_IMAGE_OBJECTS } from './buckets.js';
export * from './catalogue.js';
export { API_PATH_PREFIXES, BINARY_MEDIA_TYPES, REST_API_FUNCTION } from './rest-api.js';
export { AGENT_API_FUNCTION } from './service-functions.js';

export interface AssistedStackProps extends StackProps {
  config: StageConfig;
}

/**
 * The whole service in one stack. Its parts are built by lib/data-table.ts, lib/buckets.ts,
 * lib/service-functions.ts, lib/rest-api.ts and lib/workflows.ts in this stack's own scope, so the
 * logical ids (and the deployed resources) are those the stack has always had.
 */
export class AssistedStack extends Stack {
  readonly config: StageConfig;
  readonly table: dynamodb.Table;
  readonly buckets: ServiceBuckets;
  readonly functions: Record<string, lambda.Function>;
  readonly stateMachines: Record<string, sfn.StateMachine>;
  readonly containers: Record<string, InstallerTask> = {};
  readonly api: apigateway.LambdaRestApi;
  /** The agents' function URL (context agentEndpoint function-url). */
  readonly agentUrl?: lambda.FunctionUrl;
  readonly signingKey: AgentSigningKey;
  readonly site: ConsoleSite;
  readonly signIn: SignIn;
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
    this.table = addDataTable(this, design, { ephemeral, removalPolicy });

    // ---- S3 buckets ------------------------------------------------------------------------
    this.buckets = addServiceBuckets(this, config, removalPolicy);

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
    const machines = stateMachineNames(this);
    const stateMachinesEnv = Object.fromEntries(catalogue.stateMachines.map((m) => [m.name, machines.arn(m.name)]));

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
      // No --enable-source-maps: it decodes every map at each cold start; lambdas/platform/stack-traces.ts maps a trace when one is read.
      ENABLE_SOFT_TIMEOUTS: String(config.softTimeouts),
      ENABLE_UPGRADE_AGENT: String(config.upgradeAgent),
      ...(config.agentImage ? { AGENT_DOCKER_IMAGE: config.agentImage } : {}),
    };

    // ---- Agent signing key -------------------------------------------------------------------
    this.signingKey = new AgentSigningKey(this, 'AgentSigningKey', { projectRoot: PROJECT_ROOT, removalPolicy, logRetention });

    // ---- Lambda functions --------------------------------------------------------------------
    this.functions = addServiceFunctions(this, {
      catalogue,
      environment,
      table: this.table,
      design,
      buckets: this.buckets,
      signingKey: this.signingKey,
      hostedZones: this.hostedZones,
      stateMachines: machines,
      logRetention,
      removalPolicy,
      agentFunction: config.agentEndpoint === 'function-url',
      agentConcurrency: config.agentConcurrency,
      logLevel: config.logLevel,
    });

    // ---- The table's stream: cluster judgements follow host changes --------------------------
    const streams = addTableStreams(this, { table: this.table, streams: catalogue.streams ?? [], functions: this.functions, removalPolicy });

    // ---- Live: the WebSocket API and the event bus (lib/live-api.ts) ---------------------------
    const live = addLiveApi(this, this.functions);

    // ---- API Gateway -------------------------------------------------------------------------
    this.api = addRestApi(this, { catalogue, functions: this.functions, config, logRetention, removalPolicy });

    // ---- Sign-in: the Cognito user pool whose tokens the API accepts beside API tokens --------
    this.signIn = new SignIn(this, 'SignIn', { config: config.signIn, stage, certificateArn: config.certificateArn, ephemeral });

    // ---- Console and API behind one CloudFront domain -----------------------------------------
    this.site = new ConsoleSite(this, 'Console', {
      projectRoot: PROJECT_ROOT,
      api: this.api,
      apiStageName: stage,
      liveApiId: live?.apiId,
      accessLogs: this.buckets.access,
      domainName: config.domainName,
      certificateArn: config.certificateArn,
      // The console exchanges the sign-in's authorization code at the pool's token endpoint.
      connectSources: [this.signIn.baseUrl],
      removalPolicy,
      logGroup: new logs.LogGroup(this, 'ConsoleDeploymentLogs', { retention: logRetention, removalPolicy }),
    });
    const cloudFrontUrl = `https://${this.site.distribution.distributionDomainName}`;
    const publicUrl = config.domainName ? `https://${config.domainName}` : cloudFrontUrl;

    // The console's client names the distribution (callbacks), the distribution the pool's domain
    // (CSP), and the API functions the pool and client: functions → client → distribution →
    // domain and REST API (by id, see lib/console-site.ts), no cycle. The console works from the
    // CloudFront domain as well as from the custom one.
    this.signIn.addConsoleClient(config.domainName ? [publicUrl, cloudFrontUrl] : [cloudFrontUrl]);
    for (const [name, fn] of Object.entries(this.functions)) {
      if (!servesRestApi(name)) continue;
      for (const [key, value] of Object.entries(this.signIn.apiEnvironment())) fn.addEnvironment(key, value);
    }

    // ---- The agents' door: a function URL, where a poll costs a Lambda invocation and nothing more
    // (through CloudFront and the REST API it also paid $1 + $3.50 a million, and CloudFront's
    // transfer). The service URL every function and the installer hand out (the discovery
    // ignition's --url, image and iPXE links) is this one; image paths reaching it are redirected to
    // the public URL, whose CloudFront routes them to the image service. The agents' function itself
    // cannot name its own URL (the URL depends on the function), and needs only the public URL.
    const agentFunction = this.functions[AGENT_API_FUNCTION];
    if (agentFunction) {
      // Authentication is the function's, as behind API Gateway: agent tokens, API tokens, URL credentials.
      this.agentUrl = agentFunction.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE, invokeMode: lambda.InvokeMode.BUFFERED });
    }
    const serviceUrl = this.agentUrl ? this.agentUrl.url : publicUrl;
    for (const fn of Object.values(this.functions)) fn.addEnvironment('PUBLIC_URL', fn === agentFunction ? publicUrl : serviceUrl);

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
          environment: { ...environment, PUBLIC_URL: serviceUrl, AWS_REGION: this.region },
          filesBucket: this.buckets.files,
          logRetention,
          removalPolicy,
          image: config.installerImage,
        });
      }
    }

    // ---- Step Functions ----------------------------------------------------------------------
    this.stateMachines = addStateMachines(this, {
      specs: catalogue.stateMachines,
      names: machines,
      functions: this.functions,
      containers: this.containers,
      network,
      cluster,
      logRetention,
      removalPolicy,
    });

    // ---- Schedules: the monitors --------------------------------------------------------------
    addSchedules(this, catalogue.schedules ?? [], this.functions);

    // ---- Alarms -------------------------------------------------------------------------------
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      functions: this.functions,
      stateMachines: this.stateMachines,
      api: this.api,
      agentFunction,
      table: this.table,
      streams,
      email: config.alarmEmail,
    });

    this.acknowledgeGeneratedPolicies();

    new CfnOutput(this, 'Url', { value: publicUrl, description: 'Console and API (…/api/assisted-install/v2)' });
    new CfnOutput(this, 'CloudFrontDomain', {
      value: this.site.distribution.distributionDomainName,
      description: 'Point the custom domain here (CNAME or alias)',
    });
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'API Gateway stage URL (direct, without CloudFront)' });
    if (this.agentUrl) new CfnOutput(this, 'AgentUrl', { value: this.agentUrl.url, description: 'The service URL discovery agents are given (function URL)' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'AlarmTopic', { value: this.alarms.topic.topicArn });
    new CfnOutput(this, 'AgentSigningKeySecret', { value: this.signingKey.secret.secretArn });
    new CfnOutput(this, 'UserPoolId', { value: this.signIn.userPool.userPoolId });
    new CfnOutput(this, 'ConsoleClientId', {
      value: this.signIn.consoleClient.userPoolClientId,
      description: "The console's app client (authorization code + PKCE)",
    });
    new CfnOutput(this, 'SignInUrl', { value: this.signIn.baseUrl, description: 'Hosted sign-in pages and OAuth endpoints of the user pool' });
    if (config.signIn.domainName) {
      new CfnOutput(this, 'SignInDomainTarget', {
        value: this.signIn.domain.cloudFrontEndpoint,
        description: `Point ${config.signIn.domainName} here (CNAME or alias)`,
      });
    }
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
        {
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          reason: reason('it comes with the managed basic execution role.'),
        },
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

function retentionDays(days: number): logs.RetentionDays {
  const known = Object.values(logs.RetentionDays).filter((value): value is number => typeof value === 'number');
  if (!known.includes(days)) throw new Error(`logRetentionDays ${days}: CloudWatch Logs retains for one of ${known.join(', ')} days`);
  return days as logs.RetentionDays;
}
