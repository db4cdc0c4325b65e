import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssistedStack, loadCatalogue, loadTableDesign } from '../../lib/assisted-stack.js';

const catalogue = loadCatalogue();
const design = loadTableDesign();

type Resource = { Properties: Record<string, any>; DeletionPolicy?: string };

function logicalIdOfFunction(template: Template, name: string): string {
  const ids = Object.keys(template.findResources('AWS::Lambda::Function')).filter((id) => id.startsWith(`${name}Function`));
  expect(ids, `one Lambda function for ${name}`).toHaveLength(1);
  return ids[0]!;
}

describe('AssistedStack (dev, bundled with local esbuild)', { timeout: 120_000 }, () => {
  let template: Template;
  // Bundles land here (about 12 MB); removed afterwards rather than left in the OS temp dir.
  const outdir = mkdtempSync(join(tmpdir(), 'assisted-cdk-test-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  beforeAll(() => {
    const app = new App({ outdir, context: { stage: 'dev' } });
    const stack = new AssistedStack(app, 'AssistedCloud-dev', { stage: 'dev' });
    template = Template.fromStack(stack);
  }, 120_000);

  it('creates the single table from table.json', () => {
    const gsis = design.globalSecondaryIndexes;
    expect(gsis).toHaveLength(4);
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: design.partitionKey, KeyType: 'HASH' },
        { AttributeName: design.sortKey, KeyType: 'RANGE' },
      ],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: design.timeToLiveAttribute, Enabled: true },
      GlobalSecondaryIndexes: gsis.map((gsi) => ({
        IndexName: gsi.indexName,
        KeySchema: [
          { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    });
  });

  it('creates three encrypted, private, SSL-only buckets', () => {
    template.resourceCountIs('AWS::S3::Bucket', 3);
    const buckets = template.findResources('AWS::S3::Bucket', {
      Properties: {
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
      },
    });
    expect(Object.keys(buckets)).toHaveLength(3);

    const policies = template.findResources('AWS::S3::BucketPolicy', {
      Properties: {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      },
    });
    const policed = Object.values(policies).map((p) => (p as Resource).Properties.Bucket.Ref);
    expect(policed.sort()).toEqual(Object.keys(buckets).sort());
  });

  it('creates one arm64 nodejs22.x function per catalogue entry, with the service environment', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    expect(Object.keys(functions)).toHaveLength(catalogue.functions.length);
    for (const spec of catalogue.functions) {
      const id = logicalIdOfFunction(template, spec.name);
      const props = (functions[id] as Resource).Properties;
      expect(props.Runtime).toBe('nodejs22.x');
      expect(props.Architectures).toEqual(['arm64']);
      expect(props.Handler).toBe(`index.${spec.handler}`);
      expect(props.TracingConfig).toEqual({ Mode: 'Active' });
      const env = props.Environment.Variables;
      expect(env.TABLE_NAME).toEqual({ Ref: expect.stringMatching(/^Table/) });
      for (const name of ['FILES_BUCKET', 'IMAGES_BUCKET', 'LOGS_BUCKET', 'STATE_MACHINES', 'HOSTED_ZONES']) {
        expect(env[name], name).toBeDefined();
      }
      if (spec.kind === 'api') expect(env.OPENAPI_DOCUMENT).toBe('/var/task/openapi.json');
    }
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('fronts the API function with a REST API carrying binary media types', () => {
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      BinaryMediaTypes: Match.arrayEquals([
        'application/octet-stream',
        'multipart/form-data',
        'application/x-iso9660-image',
        'application/gzip',
      ]),
    });
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'dev' });
    const api = catalogue.functions.find((f) => f.kind === 'api')!;
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'ANY',
      Integration: Match.objectLike({
        Type: 'AWS_PROXY',
        Uri: Match.objectLike({
          'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [logicalIdOfFunction(template, api.name), 'Arn'] }])],
        }),
      }),
    });
  });

  it('wires the purge-objects state machine to the PurgeObjects function, least privilege', () => {
    const purgeId = logicalIdOfFunction(template, 'PurgeObjects');
    const purgeArn = { 'Fn::GetAtt': [purgeId, 'Arn'] };
    template.resourceCountIs('AWS::StepFunctions::StateMachine', catalogue.stateMachines.length);
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineName: 'AssistedCloud-dev-purge-objects',
      DefinitionS3Location: Match.anyValue(),
      DefinitionSubstitutions: { PurgeObjectsFunction: purgeArn },
    });

    const machines = template.findResources('AWS::StepFunctions::StateMachine');
    const roleId = (Object.values(machines)[0] as Resource).Properties.RoleArn['Fn::GetAtt'][0] as string;
    const policies = Object.values(
      template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } }),
    ) as Resource[];
    expect(policies).toHaveLength(1);
    expect(policies[0]!.Properties.PolicyDocument.Statement).toEqual([
      { Action: 'lambda:InvokeFunction', Effect: 'Allow', Resource: purgeArn },
    ]);
  });

  it('outputs the API URL and the table name', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('TableName', { Value: { Ref: Match.stringLikeRegexp('^Table') } });
  });

  it('schedules every monitor of the catalogue with EventBridge Scheduler, invoking its function', () => {
    const schedules = catalogue.schedules ?? [];
    expect(schedules.length).toBeGreaterThan(0);
    const resources = template.findResources('AWS::Scheduler::Schedule');
    expect(Object.keys(resources)).toHaveLength(schedules.length);
    for (const schedule of schedules) {
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: schedule.expression,
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp(`^${schedule.function}Function`), 'Arn'] } }),
      });
    }
  });

  it('lets dev stacks be deleted', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
  });
});

describe('AssistedStack (prod, bundling skipped)', () => {
  it('retains and protects the table outside dev', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'assisted-cdk-test-'));
    let template: Template;
    try {
      const app = new App({ outdir, context: { stage: 'prod', 'aws:cdk:bundling-stacks': [] } });
      template = Template.fromStack(new AssistedStack(app, 'AssistedCloud-prod', { stage: 'prod' }));
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'prod' });
  });
});
