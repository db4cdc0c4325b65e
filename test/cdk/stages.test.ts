/**
 * What context changes: a dev stack (deletable) and a production-like stack with every option
 * (custom domain, imported VPC, pre-built installer image, created and existing base domains),
 * synthesized together once, bundling skipped.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssistedStack } from '../../lib/assisted-stack.js';
import { addComplianceChecks } from '../../lib/compliance.js';
import { stageConfigFromContext } from '../../lib/stage-config.js';

type Json = Record<string, any>;

const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-1111-2222-3333-444455556666';
const prodContext: Json = {
  stage: 'prod',
  domainName: 'assisted.example.com',
  certificateArn: CERTIFICATE,
  // As `-c key=value` passes them: strings.
  vpc: '{"vpcId":"vpc-0123456789abcdef0","privateSubnetIds":["subnet-0aaaaaaaaaaaaaaa1","subnet-0bbbbbbbbbbbbbbb2"],"availabilityZones":["eu-west-1a","eu-west-1b"]}',
  installerImage: 'quay.io/example/assisted-installer-task:1.2.3',
  baseDomains: 'clusters.example.com',
  hostedZones: '{"existing.example.org":"Z0EXISTING"}',
  apiGatewayAccountRole: 'existing',
  logRetentionDays: '90',
  agentEndpoint: 'cloudfront',
  logLevel: 'info',
};

describe('AssistedStack per stage', { timeout: 120_000 }, () => {
  const outdir = mkdtempSync(join(tmpdir(), 'assisted-cdk-stages-'));
  let dev: Template;
  let prod: Template;
  let prodResources: Record<string, Json>;
  let violations: unknown[] = [];
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  beforeAll(() => {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const devContext: Json = { stage: 'dev' };
    const devStack = new AssistedStack(app, 'AssistedCloud-dev', { config: stageConfigFromContext((key) => devContext[key]) });
    const prodStack = new AssistedStack(app, 'AssistedCloud-prod', { config: stageConfigFromContext((key) => prodContext[key]) });
    addComplianceChecks(app);
    app.synth();
    const reportFile = join(outdir, 'validation-report.json');
    if (existsSync(reportFile)) violations = (JSON.parse(readFileSync(reportFile, 'utf8')) as Json).pluginReports.flatMap((r: Json) => r.violations);
    const read = (artifactId: string) => JSON.parse(readFileSync(join(outdir, `${artifactId}.template.json`), 'utf8')) as Json;
    dev = Template.fromJSON(read(devStack.artifactId));
    const prodJson = read(prodStack.artifactId);
    prod = Template.fromJSON(prodJson);
    prodResources = prodJson.Resources as Record<string, Json>;
  }, 120_000);

  it('passes cdk-nag and CloudFormation validation in every stage', () => {
    expect(violations).toEqual([]);
  });

  it('lets dev stacks be deleted with their data', () => {
    dev.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete', Properties: Match.objectLike({ DeletionProtectionEnabled: false }) });
    for (const bucket of Object.values(dev.findResources('AWS::S3::Bucket'))) expect(bucket.DeletionPolicy).toBe('Delete');
    dev.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Delete' });
    dev.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'dev' });
  });

  it('retains and protects data outside dev', () => {
    prod.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    for (const [id, bucket] of Object.entries(prod.findResources('AWS::S3::Bucket'))) {
      // The console bucket holds only the build, redeployed each time.
      expect(bucket.DeletionPolicy, id).toBe(id.startsWith('ConsoleBucket') ? 'Delete' : 'Retain');
    }
    prod.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
    prod.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
  });

  it('serves the custom domain with its certificate and TLS 1.2, and hands that URL out', () => {
    prod.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['assisted.example.com'],
        ViewerCertificate: { AcmCertificateArn: CERTIFICATE, MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' },
      }),
    });
    const functions = Object.values(prod.findResources('AWS::Lambda::Function')).filter((fn) => fn.Properties.Environment?.Variables?.TABLE_NAME);
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) expect(fn.Properties.Environment.Variables.PUBLIC_URL).toBe('https://assisted.example.com');
    prod.hasOutput('Url', { Value: 'https://assisted.example.com' });
  });

  it("keeps agents on the console domain when told so: no function URL, no agents' function", () => {
    prod.resourceCountIs('AWS::Lambda::Url', 0);
    expect(Object.keys(prodResources).filter((id) => id.startsWith('AgentApiFunction'))).toEqual([]);
    dev.resourceCountIs('AWS::Lambda::Url', 1);
    dev.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 20 });
  });

  it("logs at the level asked for, Lambda's platform lines included below WARN", () => {
    const functions = Object.values(prod.findResources('AWS::Lambda::Function')).filter((fn) => fn.Properties.Environment?.Variables?.TABLE_NAME);
    for (const fn of functions) {
      expect(fn.Properties.LoggingConfig).toMatchObject({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'INFO' });
      expect(fn.Properties.Environment.Variables.POWERTOOLS_LOG_LEVEL).toBe('INFO');
    }
  });

  it('runs the installer in the imported VPC from the pre-built image', () => {
    prod.resourceCountIs('AWS::EC2::VPC', 0);
    prod.resourceCountIs('AWS::EC2::NatGateway', 0);
    prod.hasResourceProperties('AWS::EC2::SecurityGroup', { VpcId: 'vpc-0123456789abcdef0' });
    const machine = Object.values(prod.findResources('AWS::StepFunctions::StateMachine')).find(
      (m) => m.Properties.StateMachineName === 'AssistedCloud-prod-install-cluster',
    )!;
    expect(machine.Properties.DefinitionSubstitutions.InstallerSubnets).toBe('["subnet-0aaaaaaaaaaaaaaa1","subnet-0bbbbbbbbbbbbbbb2"]');
    // Private subnets: the VPC's own NAT is the way out.
    expect(machine.Properties.DefinitionSubstitutions.InstallerAssignPublicIp).toBe('DISABLED');
    prod.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [Match.objectLike({ Name: 'installer', Image: 'quay.io/example/assisted-installer-task:1.2.3' })],
    });
  });

  it('creates hosted zones for new base domains and lets the functions change records in those and the existing ones', () => {
    const zones = Object.entries(prod.findResources('AWS::Route53::HostedZone'));
    expect(zones).toHaveLength(1);
    const [zoneId, zone] = zones[0]!;
    expect(zone.Properties.Name).toBe('clusters.example.com.');
    expect(zone.DeletionPolicy).toBe('Retain');
    const api = Object.entries(prodResources).find(([id, r]) => id.startsWith('ApiFunction') && r.Type === 'AWS::Lambda::Function')![1];
    const hostedZones = JSON.stringify(api.Properties.Environment.Variables.HOSTED_ZONES);
    expect(hostedZones).toContain('existing.example.org');
    expect(hostedZones).toContain('Z0EXISTING');
    expect(hostedZones).toContain(zoneId);
    const roleId = api.Properties.Role['Fn::GetAtt'][0] as string;
    const statements = Object.values(prodResources)
      .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((role: Json) => role.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Json[]);
    const dns = statements.find((s) => [s.Action].flat().includes('route53:ChangeResourceRecordSets'))!;
    const zoneArns = JSON.stringify(dns.Resource);
    expect(zoneArns).toContain('hostedzone/Z0EXISTING');
    expect(zoneArns).toContain(zoneId);
    prod.hasOutput('NameServersclustersexamplecom', {});
  });

  it('leaves the API Gateway account role to the account when told so', () => {
    prod.resourceCountIs('AWS::ApiGateway::Account', 0);
    dev.resourceCountIs('AWS::ApiGateway::Account', 1);
  });
});
