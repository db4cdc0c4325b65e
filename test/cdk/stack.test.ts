/**
 * The staging stack as `npx cdk synth -c stage=staging` makes it: every function bundled with
 * esbuild, the installer image context staged, cdk-nag (AwsSolutions) and CloudFormation's own
 * template checks run. One synth for the whole file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  AGENT_API_FUNCTION,
  API_PATH_PREFIXES,
  AssistedStack,
  BINARY_MEDIA_TYPES,
  PROJECT_ROOT,
  REST_API_FUNCTION,
  loadCatalogue,
  loadTableDesign,
} from '../../lib/assisted-stack.js';
import { memoryFor } from '../../lib/service-functions.js';
import { addComplianceChecks } from '../../lib/compliance.js';
import { INSTALLER_CONTAINER_NAME } from '../../lib/installer-task.js';
import { stageConfigFromContext } from '../../lib/stage-config.js';

const catalogue = loadCatalogue();
const design = loadTableDesign();
/** The catalogue's functions and the agents' own copy of the REST API function. */
const restApiSpec = catalogue.functions.find((spec) => spec.name === REST_API_FUNCTION)!;
const allFunctions = [...catalogue.functions, { ...restApiSpec, name: AGENT_API_FUNCTION }];
/** Functions called per poll (or per change a poll makes): no traces but those a caller sampled, no metric log lines. */
const perPoll = (spec: { name: string; kind: string }) => spec.name === AGENT_API_FUNCTION || spec.kind === 'stream';

type Json = Record<string, any>;
type Resource = { Type: string; Properties: Json; DeletionPolicy?: string; UpdateReplacePolicy?: string; Metadata?: Json };
interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Json;
}

const actionsOf = (statement: Statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);
const resourcesOf = (statement: Statement) => (Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]);

describe('AssistedStack, staging, bundled and checked', { timeout: 180_000 }, () => {
  const outdir = mkdtempSync(join(tmpdir(), 'assisted-cdk-staging-'));
  let template: Template;
  let resources: Record<string, Resource>;
  let assets: Json;
  let validationFailure: string | undefined;
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  beforeAll(() => {
    const context = { stage: 'staging', alarmEmail: 'ops@example.com' };
    const app = new App({ outdir, context });
    const stack = new AssistedStack(app, 'AssistedCloud-staging', { config: stageConfigFromContext((key) => (context as Json)[key]) });
    addComplianceChecks(app);
    const reportFile = join(outdir, 'validation-report.json');
    try {
      app.synth();
    } catch (error) {
      validationFailure = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : String(error);
    }
    // Warnings (CloudFormation's own template checks) do not fail synth but are written here too.
    if (!validationFailure && existsSync(reportFile)) {
      const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Json;
      if (report.pluginReports.some((r: Json) => r.violations.length > 0)) validationFailure = JSON.stringify(report, null, 1);
    }
    const templateJson = JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.template.json`), 'utf8')) as Json;
    template = Template.fromJSON(templateJson);
    resources = templateJson.Resources as Record<string, Resource>;
    assets = JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.assets.json`), 'utf8')) as Json;
  }, 180_000);

  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const byPrefix = (type: string, prefix: string): [string, Resource] => {
    const found = ofType(type).filter(([id]) => id.startsWith(prefix));
    expect(
      found.map(([id]) => id),
      `${type} ${prefix}*`,
    ).toHaveLength(1);
    return found[0]!;
  };
  const functionId = (name: string) => byPrefix('AWS::Lambda::Function', `${name}Function`)[0];
  const statementsOfRole = (roleId: string): Statement[] =>
    ofType('AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
  const roleOf = (resource: Resource, property = 'Role') => (resource.Properties[property] as Json)['Fn::GetAtt'][0] as string;

  it('passes cdk-nag AwsSolutions and CloudFormation validation with nothing unacknowledged', () => {
    expect(validationFailure, validationFailure).toBeUndefined();
  });

  it('gives every acknowledged finding a written reason', () => {
    // CDK itself acknowledges some CloudFormation-Validate rules stack-wide; ours are the AwsSolutions ones.
    const acknowledged = Object.values(resources)
      .flatMap((r) => (r.Metadata?.cdk_nag?.rules_to_suppress ?? []) as { id: string; reason: string }[])
      .filter(({ id }) => !id.startsWith('CloudFormation-Validate::'));
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const { id, reason } of acknowledged) {
      expect(id).toMatch(/^AwsSolutions-[A-Z]+\d+(\[.+\])?$/);
      expect(reason.length, `reason for ${id}`).toBeGreaterThanOrEqual(60);
    }
    // Findings that are acknowledged wholesale nowhere: each IAM5 acknowledgement names its wildcard.
    expect(acknowledged.filter(({ id }) => id === 'AwsSolutions-IAM5')).toEqual([]);
  });

  it('creates the single table from table.json, protected and retained', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        DeletionProtectionEnabled: true,
        SSESpecification: { SSEEnabled: true },
        KeySchema: [
          { AttributeName: design.partitionKey, KeyType: 'HASH' },
          { AttributeName: design.sortKey, KeyType: 'RANGE' },
        ],
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: design.timeToLiveAttribute, Enabled: true },
        GlobalSecondaryIndexes: design.globalSecondaryIndexes.map((gsi) => ({
          IndexName: gsi.indexName,
          KeySchema: [
            { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
            { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
          ],
          Projection: gsi.nonKeyAttributes ? { ProjectionType: 'INCLUDE', NonKeyAttributes: gsi.nonKeyAttributes } : { ProjectionType: 'ALL' },
        })),
      },
    });
  });

  it('makes every bucket encrypted, private and TLS-only, logging to the access log bucket', () => {
    const buckets = ofType('AWS::S3::Bucket');
    expect(buckets.map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual(
      ['AccessLogsBucket', 'ConsoleBucket', 'FilesBucket', 'ImagesBucket', 'LogsBucket'].sort(),
    );
    const [accessId] = byPrefix('AWS::S3::Bucket', 'AccessLogsBucket');
    for (const [id, bucket] of buckets) {
      expect(bucket.Properties.BucketEncryption, id).toEqual({
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      });
      expect(bucket.Properties.PublicAccessBlockConfiguration, id).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      if (id !== accessId) expect(bucket.Properties.LoggingConfiguration?.DestinationBucketName, id).toEqual({ Ref: accessId });
      const policies = ofType('AWS::S3::BucketPolicy').filter(([, p]) => p.Properties.Bucket.Ref === id);
      expect(policies, id).toHaveLength(1);
      expect(policies[0]![1].Properties.PolicyDocument.Statement, id).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      );
    }
  });

  it('expires stale discovery images, old cluster logs and incomplete uploads', () => {
    const rules = (prefix: string) => byPrefix('AWS::S3::Bucket', prefix)[1].Properties.LifecycleConfiguration.Rules as Json[];
    expect(rules('ImagesBucket')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Id: 'expire-stale-images', Prefix: 'orgs/', ExpirationInDays: 14, Status: 'Enabled' }),
        expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
      ]),
    );
    expect(rules('LogsBucket')).toEqual(
      expect.arrayContaining([expect.objectContaining({ Id: 'expire-cluster-logs', Prefix: 'orgs/', ExpirationInDays: 90 })]),
    );
    // Ignition and install-config files live as long as their cluster: no expiry on the files bucket.
    expect(rules('FilesBucket').filter((rule) => 'ExpirationInDays' in rule)).toEqual([]);
  });

  it('creates one arm64 nodejs22.x function per catalogue entry and one for agents, each with its bundle built', () => {
    const ownFunctions = allFunctions.map((spec) => functionId(spec.name));
    const agentUrl = { 'Fn::GetAtt': [byPrefix('AWS::Lambda::Url', `${AGENT_API_FUNCTION}FunctionFunctionUrl`)[0], 'FunctionUrl'] };
    const consoleUrl = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [expect.stringMatching(/^ConsoleDistribution/), 'DomainName'] }]] };
    for (const spec of allFunctions) {
      const fn = resources[functionId(spec.name)]!;
      const props = fn.Properties;
      expect(props.Runtime).toBe('nodejs22.x');
      expect(props.Architectures).toEqual(['arm64']);
      expect(props.Handler).toBe(`index.${spec.handler}`);
      expect(props.MemorySize, spec.name).toBe(memoryFor(spec));
      expect(props.TracingConfig, spec.name).toEqual({ Mode: perPoll(spec) ? 'PassThrough' : 'Active' });
      // JSON lines filtered by level: no INFO line per request, no START/END/REPORT lines.
      expect(props.LoggingConfig).toEqual({
        LogGroup: { Ref: expect.stringMatching(new RegExp(`^${spec.name}Logs`)) },
        LogFormat: 'JSON',
        ApplicationLogLevel: 'WARN',
        SystemLogLevel: 'WARN',
      });
      const env = props.Environment.Variables as Json;
      expect(env.POWERTOOLS_LOG_LEVEL).toBe('WARN');
      expect(env.POWERTOOLS_METRICS_DISABLED, spec.name).toBe(perPoll(spec) ? 'true' : undefined);
      expect(env.TABLE_NAME).toEqual({ Ref: expect.stringMatching(/^Table/) });
      for (const name of ['FILES_BUCKET', 'IMAGES_BUCKET', 'LOGS_BUCKET', 'STATE_MACHINES', 'HOSTED_ZONES']) expect(env[name], name).toBeDefined();
      // What every function hands out (the discovery ignition's --url, image links) is the agents' URL;
      // the agents' function cannot name its own, and redirects image paths to the console's.
      expect(env.PUBLIC_URL, spec.name).toEqual(spec.name === AGENT_API_FUNCTION ? consoleUrl : agentUrl);
      expect(env.OPENAPI_DOCUMENT).toBe(spec.name === REST_API_FUNCTION || spec.name === AGENT_API_FUNCTION ? '/var/task/openapi.json' : undefined);
      if (spec.kind === 'api') {
        expect(env.EC_PRIVATE_KEY_SECRET_ARN).toEqual({ Ref: expect.stringMatching(/^AgentSigningKeySecret/) });
      } else {
        expect(env.EC_PRIVATE_KEY_SECRET_ARN).toBeUndefined();
      }
      expect(env.EC_PRIVATE_KEY_PEM).toBeUndefined();

      // The bundle: esbuild's output in the asset directory the template points at.
      const assetDir = join(outdir, `asset.${props.Code.S3Key.replace(/\.zip$/, '')}`);
      expect(existsSync(join(assetDir, 'index.mjs')), `${spec.name} bundle`).toBe(true);
      if (spec.name === REST_API_FUNCTION) expect(JSON.parse(readFileSync(join(assetDir, 'openapi.json'), 'utf8')).openapi).toMatch(/^3\./);
    }
    expect(new Set(ownFunctions).size).toBe(allFunctions.length);
    // The agents' function is the REST API function's bundle, uploaded once.
    expect(resources[functionId(AGENT_API_FUNCTION)]!.Properties.Code).toEqual(resources[functionId(REST_API_FUNCTION)]!.Properties.Code);
    for (const [id, group] of ofType('AWS::Logs::LogGroup')) expect(group.Properties.RetentionInDays, id).toBe(30);
  });

  it('lets agents call their own function through a function URL: authenticated by the function, capped by reserved concurrency', () => {
    const agentFunction = functionId(AGENT_API_FUNCTION);
    const [urlId, url] = byPrefix('AWS::Lambda::Url', `${AGENT_API_FUNCTION}FunctionFunctionUrl`);
    expect(url.Properties).toEqual({ AuthType: 'NONE', InvokeMode: 'BUFFERED', TargetFunctionArn: { 'Fn::GetAtt': [agentFunction, 'Arn'] } });
    expect(ofType('AWS::Lambda::Url')).toHaveLength(1);
    expect(resources[agentFunction]!.Properties.ReservedConcurrentExecutions).toBe(20);
    for (const spec of catalogue.functions) expect(resources[functionId(spec.name)]!.Properties.ReservedConcurrentExecutions, spec.name).toBeUndefined();
    const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => JSON.stringify(p.Properties.FunctionName).includes(agentFunction));
    // Both actions, as function URLs created since October 2025 require, and only through the URL.
    expect(
      permissions.map(([, p]) => [p.Properties.Action, p.Properties.Principal, p.Properties.FunctionUrlAuthType ?? p.Properties.InvokedViaFunctionUrl]).sort(),
    ).toEqual([
      ['lambda:InvokeFunction', '*', true],
      ['lambda:InvokeFunctionUrl', '*', 'NONE'],
    ]);
    template.hasOutput('AgentUrl', { Value: { 'Fn::GetAtt': [urlId, 'FunctionUrl'] } });
    // The installer hands the controller the same URL.
    const task = byPrefix('AWS::ECS::TaskDefinition', 'InstallationFilesContainerTaskDefinition')[1];
    const environment = task.Properties.ContainerDefinitions[0].Environment as { Name: string; Value: unknown }[];
    expect(environment.find((e) => e.Name === 'PUBLIC_URL')!.Value).toEqual({ 'Fn::GetAtt': [urlId, 'FunctionUrl'] });
    // REST's API 5xx alarm has its function URL counterpart.
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Url5xxCount',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: agentFunction } }],
    });
  });

  it('grants each function its own log group, the table and its indexes, orgs/* objects and nothing broader', () => {
    const [tableId] = byPrefix('AWS::DynamoDB::Table', 'Table');
    for (const spec of allFunctions) {
      const fn = resources[functionId(spec.name)]!;
      const roleId = roleOf(fn);
      expect(resources[roleId]!.Properties.ManagedPolicyArns, spec.name).toBeUndefined();
      const statements = statementsOfRole(roleId);
      for (const statement of statements) {
        expect(statement.Effect).toBe('Allow');
        // ListStreams has no resource-level permission: a stream consumer is granted it on "*" (the
        // stream's own reads are granted on the stream's ARN).
        const streamListing = spec.kind === 'stream' && JSON.stringify(actionsOf(statement)) === JSON.stringify(['dynamodb:ListStreams']);
        if (resourcesOf(statement).includes('*') && !streamListing)
          expect(actionsOf(statement).sort(), `${spec.name}: "*" only for X-Ray`).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
        for (const action of actionsOf(statement)) expect(action, `${spec.name}: no wildcard actions`).not.toContain('*');
      }
      const logs = statements.find((s) => actionsOf(s).includes('logs:PutLogEvents'))!;
      expect(resourcesOf(logs)).toEqual([{ 'Fn::GetAtt': [fn.Properties.LoggingConfig.LogGroup.Ref, 'Arn'] }]);
      const table = statements.find((s) => actionsOf(s).includes('dynamodb:PutItem'))!;
      expect(resourcesOf(table)).toHaveLength(1 + design.globalSecondaryIndexes.length);
      expect(JSON.stringify(table.Resource)).toContain(tableId);
      expect(actionsOf(table)).not.toContain('dynamodb:Scan');
      const objects = statements.filter((s) => actionsOf(s).includes('s3:PutObject'));
      expect(objects).toHaveLength(3);
      for (const statement of objects) {
        expect(statement.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^(Files|Images|Logs)Bucket/), 'Arn'] }, '/orgs/*']] });
      }
      // Base images: read-only, the images bucket only.
      const baseImages = statements.filter((s) => JSON.stringify(s.Resource).includes('/base-images/*'));
      expect(baseImages.map((s) => s.Action)).toEqual(['s3:GetObject']);
      expect(baseImages[0]!.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^ImagesBucket/), 'Arn'] }, '/base-images/*']] });
      const listings = statements.filter((s) => actionsOf(s).includes('s3:ListBucket'));
      expect(listings).toHaveLength(4);
      for (const statement of listings) expect([['orgs/*'], ['base-images/*']]).toContainEqual(statement.Condition!.StringLike['s3:prefix']);
      const secretReads = statements.filter((s) => actionsOf(s).includes('secretsmanager:GetSecretValue'));
      expect(secretReads, spec.name).toHaveLength(spec.kind === 'api' ? 1 : 0);
    }
  });

  it('keeps the agent signing key in Secrets Manager, made by a custom resource and retained', () => {
    const [secretId, secret] = byPrefix('AWS::SecretsManager::Secret', 'AgentSigningKeySecret');
    expect(secret.DeletionPolicy).toBe('Retain');
    template.hasResourceProperties('Custom::AgentSigningKey', { SecretArn: { Ref: secretId } });
    const generator = resources[byPrefix('AWS::Lambda::Function', 'AgentSigningKeyGenerator')[0]]!;
    expect(generator.Properties.Handler).toBe('index.onEvent');
    const writes = statementsOfRole(roleOf(generator)).filter((s) => actionsOf(s).includes('secretsmanager:PutSecretValue'));
    expect(writes.map((s) => s.Resource)).toEqual([{ Ref: secretId }]);
    // No key material in the template.
    expect(JSON.stringify(resources)).not.toContain('PRIVATE KEY');
  });

  it('fronts the API function with a REST API: binary bodies, tracing, throttling, access logs without bodies', () => {
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      BinaryMediaTypes: BINARY_MEDIA_TYPES,
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    expect(BINARY_MEDIA_TYPES).toEqual(['*/*']);
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'staging',
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiAccessLogs'), 'Arn'] }, Format: Match.anyValue() },
      MethodSettings: [
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 100,
          ThrottlingBurstLimit: 200,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          MetricsEnabled: true,
        }),
      ],
    });
  });

  it('routes every operation of openapi.yaml to the API function, and the image service to its own', () => {
    // The resource tree as API Gateway matches it: the longest {proxy+} prefix wins.
    const restResources = Object.fromEntries(ofType('AWS::ApiGateway::Resource'));
    const [restApiId] = byPrefix('AWS::ApiGateway::RestApi', 'Api');
    const pathOf = (ref: Json): string => {
      if (ref['Fn::GetAtt']?.[0] === restApiId) return '';
      const resource = restResources[ref.Ref as string]!;
      return `${pathOf(resource.Properties.ParentId)}/${resource.Properties.PathPart}`;
    };
    const routes = ofType('AWS::ApiGateway::Method').map(([, method]) => {
      expect(method.Properties.HttpMethod).toBe('ANY');
      expect(method.Properties.AuthorizationType).toBe('NONE');
      expect(method.Properties.Integration.Type).toBe('AWS_PROXY');
      const resourcePath = pathOf(method.Properties.ResourceId);
      const target = catalogue.functions.find((f) => JSON.stringify(method.Properties.Integration.Uri).includes(`"${functionId(f.name)}"`))!;
      return { prefix: resourcePath.replace(/\{proxy\+\}$/, ''), greedy: resourcePath.endsWith('{proxy+}'), target: target.name };
    });
    const route = (path: string) =>
      routes
        .filter((r) => (r.greedy ? path.startsWith(r.prefix) && path.length > r.prefix.length : path === (r.prefix || '/')))
        .sort((a, b) => b.prefix.length - a.prefix.length)[0]?.target;

    const document = parse(readFileSync(join(PROJECT_ROOT, 'openapi.yaml'), 'utf8')) as { servers: { url: string }[]; paths: Record<string, Json> };
    const base = document.servers[0]!.url;
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op && typeof op === 'object' && 'operationId' in op)
        .map(([method, op]) => ({ id: `${method.toUpperCase()} ${path} (${op.operationId})`, path: `${base}${path.replace(/\{[^}]+\}/g, 'x')}` })),
    );
    expect(operations.length).toBeGreaterThan(50);
    for (const operation of operations) expect(route(operation.path), operation.id).toBe(REST_API_FUNCTION);
    for (const [name, prefix] of Object.entries(API_PATH_PREFIXES)) {
      if (!catalogue.functions.some((f) => f.name === name)) continue;
      expect(route(`/${prefix}/images/8d5e3c1a-0000-4000-8000-000000000001`), name).toBe(name);
    }
  });

  it('puts the console and the API under one CloudFront distribution', () => {
    const [, distribution] = byPrefix('AWS::CloudFront::Distribution', 'ConsoleDistribution');
    const config = distribution.Properties.DistributionConfig as Json;
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.Logging.Bucket['Fn::GetAtt'][0]).toMatch(/^AccessLogsBucket/);
    const apiBehaviour = (config.CacheBehaviors as Json[]).find((b) => b.PathPattern === '/api/*')!;
    expect(apiBehaviour.AllowedMethods).toHaveLength(7);
    // Managed policies: CachingDisabled and AllViewerExceptHostHeader.
    expect(apiBehaviour.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    expect(apiBehaviour.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');
    const apiOrigin = (config.Origins as Json[]).find((o) => o.Id === apiBehaviour.TargetOriginId)!;
    expect(apiOrigin.OriginPath).toBe('/staging');
    expect(JSON.stringify(apiOrigin.DomainName)).toContain('execute-api');
    expect(apiOrigin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
    const consoleOrigin = (config.Origins as Json[]).find((o) => o.Id === config.DefaultCacheBehavior.TargetOriginId)!;
    expect(consoleOrigin.OriginAccessControlId).toBeDefined();
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [expect.stringMatching(/^ConsoleConsoleRoutes/), 'FunctionARN'] } },
    ]);
    // Distribution-wide error pages would rewrite the API's 403/404 answers.
    expect(config.CustomErrorResponses).toBeUndefined();
    template.resourceCountIs('Custom::CDKBucketDeployment', 1);
  });

  it("routes the console's /live to the WebSocket API's stage under the same distribution", () => {
    const [, distribution] = byPrefix('AWS::CloudFront::Distribution', 'ConsoleDistribution');
    const config = distribution.Properties.DistributionConfig as Json;
    const liveBehaviour = (config.CacheBehaviors as Json[]).find((b) => b.PathPattern === '/live');
    expect(liveBehaviour, JSON.stringify((config.CacheBehaviors as Json[]).map((b) => b.PathPattern))).toBeDefined();
    expect(liveBehaviour!.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(liveBehaviour!.ViewerProtocolPolicy).toBe('https-only');
    // CachingDisabled and AllViewerExceptHostHeader: the token in the query and the handshake's headers reach the stage.
    expect(liveBehaviour!.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    expect(liveBehaviour!.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');
    const liveOrigin = (config.Origins as Json[]).find((o) => o.Id === liveBehaviour!.TargetOriginId)!;
    const [webSocketApiId] = ofType('AWS::ApiGatewayV2::Api').find(([, api]) => api.Properties.ProtocolType === 'WEBSOCKET')!;
    expect(JSON.stringify(liveOrigin.DomainName)).toContain(JSON.stringify({ Ref: webSocketApiId }));
    expect(JSON.stringify(liveOrigin.DomainName)).toContain('execute-api');
    // The viewer's /live is the stage's own path: no origin path before it.
    expect(liveOrigin.OriginPath ?? '').toBe('');
    expect(ofType('AWS::ApiGatewayV2::Stage').map(([, stage]) => stage.Properties.StageName)).toEqual(['live']);
    expect(liveOrigin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
  });

  it('wires each state machine to the functions and containers its substitutions name, least privilege', () => {
    for (const spec of catalogue.stateMachines) {
      const [, machine] = ofType('AWS::StepFunctions::StateMachine').find(([, m]) => m.Properties.StateMachineName === `AssistedCloud-staging-${spec.name}`)!;
      const props = machine.Properties;
      expect(props.DefinitionS3Location).toBeDefined();
      expect(props.TracingConfiguration).toEqual({ Enabled: true });
      expect(props.LoggingConfiguration).toMatchObject({ Level: 'ALL', IncludeExecutionData: false });
      const statements = statementsOfRole(roleOf(machine, 'RoleArn'));
      const invoke = statements.filter((s) => actionsOf(s).includes('lambda:InvokeFunction'));
      const expectedFunctions: unknown[] = [];
      for (const [placeholder, target] of Object.entries(spec.substitutions ?? {})) {
        const value = props.DefinitionSubstitutions[placeholder];
        const [form, name] = target.includes(':') ? target.split(':') : ['function', target];
        if (form === 'function') {
          expect(value, placeholder).toEqual({ 'Fn::GetAtt': [functionId(name!), 'Arn'] });
          expectedFunctions.push(value);
        } else if (form === 'container') {
          expect(value, placeholder).toEqual({ Ref: expect.stringMatching(new RegExp(`^${name}ContainerTaskDefinition`)) });
          const runTask = statements.find((s) => actionsOf(s).includes('ecs:RunTask'))!;
          expect(runTask.Resource).toEqual(value);
          expect(runTask.Condition).toEqual({ ArnEquals: { 'ecs:cluster': { 'Fn::GetAtt': [expect.stringMatching(/^InstallerCluster/), 'Arn'] } } });
          const passRole = statements.find((s) => actionsOf(s).includes('iam:PassRole'))!;
          expect(passRole.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } });
          expect(JSON.stringify(passRole.Resource)).toMatch(/TaskRole.*ExecutionRole|ExecutionRole.*TaskRole/);
          const events = statements.find((s) => actionsOf(s).includes('events:PutRule'))!;
          expect(JSON.stringify(events.Resource)).toContain('rule/StepFunctionsGetEventsForECSTaskRule');
        } else if (form === 'containerCluster') {
          expect(value, placeholder).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^InstallerCluster/), 'Arn'] });
        } else if (form === 'containerAssignPublicIp') {
          expect(value, placeholder).toBe('ENABLED');
        } else if (form === 'containerSubnets') {
          // A JSON array of the (public) subnets, substituted raw into the ASL.
          const parts = value['Fn::Join'][1] as unknown[];
          expect(parts[0]).toBe('["');
          expect(parts.at(-1)).toBe('"]');
          expect(parts.filter((p) => typeof p === 'object')).toEqual([
            { Ref: expect.stringMatching(/^InstallerNetworkVpcinstallerSubnet1/) },
            { Ref: expect.stringMatching(/^InstallerNetworkVpcinstallerSubnet2/) },
          ]);
        }
      }
      if (expectedFunctions.length > 0) {
        expect(invoke).toHaveLength(1);
        expect(resourcesOf(invoke[0]!)).toEqual(expectedFunctions);
      }
      const asl = readFileSync(join(PROJECT_ROOT, spec.definition), 'utf8');
      for (const placeholder of asl.match(/\$\{[A-Za-z0-9]+\}/g) ?? []) expect(Object.keys(props.DefinitionSubstitutions)).toContain(placeholder.slice(2, -1));
    }
  });

  it('runs the installer as a Fargate task: logs to CloudWatch, role limited to orgs/* of the files bucket', () => {
    const [taskId, task] = byPrefix('AWS::ECS::TaskDefinition', 'InstallationFilesContainerTaskDefinition');
    expect(task.Properties.RequiresCompatibilities).toEqual(['FARGATE']);
    expect(task.Properties.RuntimePlatform).toEqual({ CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' });
    const [container] = task.Properties.ContainerDefinitions as Json[];
    expect(container!.Name).toBe(INSTALLER_CONTAINER_NAME);
    expect(container!.LogConfiguration.LogDriver).toBe('awslogs');
    const env = Object.fromEntries((container!.Environment as Json[]).map((e) => [e.Name, e.Value]));
    for (const name of ['TABLE_NAME', 'FILES_BUCKET', 'IMAGES_BUCKET', 'LOGS_BUCKET', 'PUBLIC_URL', 'AWS_REGION']) expect(env[name], name).toBeDefined();
    expect(env.ALLOW_SIMULATED_INSTALLER).toBeUndefined();

    const taskRole = statementsOfRole(roleOf(task, 'TaskRoleArn'));
    const [filesBucketId] = byPrefix('AWS::S3::Bucket', 'FilesBucket');
    expect(taskRole).toEqual([
      { Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'], Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [filesBucketId, 'Arn'] }, '/orgs/*']] } },
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: { 'Fn::GetAtt': [filesBucketId, 'Arn'] }, Condition: { StringLike: { 's3:prefix': ['orgs/*'] } } },
    ]);

    // The image: built at deploy from the staged context, the entry already bundled.
    const images = Object.values(assets.dockerImages as Json) as Json[];
    expect(images).toHaveLength(1);
    expect(images[0]!.source).toMatchObject({ dockerFile: 'Containerfile', platform: 'linux/amd64' });
    const contextDir = join(outdir, images[0]!.source.directory as string);
    for (const file of ['Containerfile', 'run-installer.sh', 'installation-files.mjs']) expect(existsSync(join(contextDir, file)), file).toBe(true);
    expect(readFileSync(join(contextDir, 'installation-files.mjs'), 'utf8')).toContain('openshift-install');
    expect(String(container!.Image['Fn::Sub'])).toContain('container-assets');
    expect(taskId).toBeDefined();
  });

  it('gives the installer public subnets and no NAT gateway: a public IP per task, no inbound, HTTPS-only egress, an S3 endpoint, flow logs', () => {
    template.resourceCountIs('AWS::EC2::VPC', 1);
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::EIP', 0);
    template.resourceCountIs('AWS::EC2::InternetGateway', 1);
    const subnets = ofType('AWS::EC2::Subnet');
    expect(subnets).toHaveLength(2);
    for (const [id, subnet] of subnets) expect(subnet.Properties.MapPublicIpOnLaunch, id).toBe(false);
    template.hasResourceProperties('AWS::EC2::Route', {
      DestinationCidrBlock: '0.0.0.0/0',
      GatewayId: { Ref: Match.stringLikeRegexp('^InstallerNetworkVpcIGW') },
    });
    template.hasResourceProperties('AWS::EC2::VPCEndpoint', { VpcEndpointType: 'Gateway', ServiceName: Match.objectLike({}) });
    template.resourceCountIs('AWS::EC2::FlowLog', 1);
    template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      SecurityGroupEgress: [{ CidrIp: '0.0.0.0/0', FromPort: 443, ToPort: 443, IpProtocol: 'tcp', Description: Match.anyValue() }],
      SecurityGroupIngress: Match.absent(),
    });
    const machine = ofType('AWS::StepFunctions::StateMachine').find(([id]) => id.startsWith('InstallClusterStateMachine'))![1];
    expect(machine.Properties.DefinitionSubstitutions.InstallerAssignPublicIp).toBe('ENABLED');
    template.hasResourceProperties('AWS::ECS::Cluster', { ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }] });
  });

  it('schedules every monitor with EventBridge Scheduler, allowed to invoke that function only', () => {
    const schedules = catalogue.schedules ?? [];
    expect(schedules.length).toBeGreaterThan(0);
    expect(ofType('AWS::Scheduler::Schedule')).toHaveLength(schedules.length);
    for (const schedule of schedules) {
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: schedule.expression,
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: Match.objectLike({ Arn: { 'Fn::GetAtt': [functionId(schedule.function), 'Arn'] } }),
      });
    }
    const [roleId] = byPrefix('AWS::IAM::Role', 'SchedulerRole');
    const statements = statementsOfRole(roleId);
    expect(statements.flatMap(actionsOf)).toEqual(schedules.map(() => 'lambda:InvokeFunction'));
    expect(statements.flatMap(resourcesOf)).toEqual(schedules.map((s) => ({ 'Fn::GetAtt': [functionId(s.function), 'Arn'] })));
  });

  it('feeds each stream mapping from the table stream: batches, bisect, retries, partial failures, a filter, an SQS failure queue and lag alarms', () => {
    const streams = catalogue.streams ?? [];
    expect(streams.length).toBeGreaterThan(0);
    const [tableId] = byPrefix('AWS::DynamoDB::Table', 'Table');
    template.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
    expect(ofType('AWS::Lambda::EventSourceMapping')).toHaveLength(streams.length);
    for (const stream of streams) {
      const [queueId] = byPrefix('AWS::SQS::Queue', `${stream.function}StreamFailures`);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: functionId(stream.function) },
        EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: stream.batchSize,
        BisectBatchOnFunctionError: stream.bisectBatchOnFunctionError,
        MaximumRetryAttempts: stream.maximumRetryAttempts,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
        FilterCriteria: { Filters: [{ Pattern: JSON.stringify(stream.filter) }] },
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'IteratorAge',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(stream.function) } }],
        Threshold: 60_000,
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      });
    }
  });

  it('alarms on function errors and throttles, API 5xx, table throttles and failed workflows, to one topic', () => {
    const [topicId] = byPrefix('AWS::SNS::Topic', 'AlarmsTopic');
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: topicId } });
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
    const watched = (metric: string) => alarms.filter((a) => a.MetricName === metric);
    expect(watched('Errors')).toHaveLength(allFunctions.length);
    expect(watched('Throttles')).toHaveLength(allFunctions.length);
    expect(watched('ExecutionsFailed')).toHaveLength(catalogue.stateMachines.length);
    expect(watched('ExecutionsTimedOut')).toHaveLength(catalogue.stateMachines.length);
    expect(watched('5XXError')).toHaveLength(1);
    expect(watched('Url5xxCount')).toHaveLength(1);
    expect(watched('WriteThrottleEvents')).toHaveLength(1);
  });

  it('outputs the public URL, the API stage URL and the table', () => {
    template.hasOutput('Url', { Value: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [Match.stringLikeRegexp('^ConsoleDistribution'), 'DomainName'] }]] } });
    template.hasOutput('ApiUrl', {});
    template.hasOutput('TableName', { Value: { Ref: Match.stringLikeRegexp('^Table') } });
  });
});
