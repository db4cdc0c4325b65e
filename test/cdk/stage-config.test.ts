import { describe, expect, it } from 'vitest';
import { stageConfigFromContext } from '../../lib/stage-config.js';

const from = (context: Record<string, unknown>) => stageConfigFromContext((key) => context[key]);

describe('stage configuration from CDK context', () => {
  it('defaults to a deletable dev stage with staging-sized limits', () => {
    expect(from({})).toMatchObject({
      stage: 'dev',
      ephemeral: true,
      hostedZones: {},
      baseDomains: [],
      apiRateLimit: 100,
      apiBurstLimit: 200,
      logRetentionDays: 30,
      manageApiGatewayAccountRole: true,
      softTimeouts: false,
      agentEndpoint: 'function-url',
      agentConcurrency: 20,
      logLevel: 'WARN',
    });
    expect(from({ agentEndpoint: 'cloudfront', agentConcurrency: '0', logLevel: 'info' })).toMatchObject({
      agentEndpoint: 'cloudfront',
      agentConcurrency: 0,
      logLevel: 'INFO',
    });
    expect(from({ stage: 'staging' }).ephemeral).toBe(false);
    expect([from({ softTimeouts: 'true' }).softTimeouts, from({ softTimeouts: true }).softTimeouts]).toEqual([true, true]);
    expect(() => from({ softTimeouts: 'yes' })).toThrow(/softTimeouts/);
  });

  it('reads lists and maps from the command line (strings) and from cdk.json (JSON)', () => {
    expect(from({ baseDomains: 'a.example.com, b.example.com' }).baseDomains).toEqual(['a.example.com', 'b.example.com']);
    expect(from({ baseDomains: ['a.example.com'] }).baseDomains).toEqual(['a.example.com']);
    expect(from({ hostedZones: '{"a.example.com":"Z1"}' }).hostedZones).toEqual({ 'a.example.com': 'Z1' });
    expect(from({ hostedZones: { 'a.example.com': 'Z1' } }).hostedZones).toEqual({ 'a.example.com': 'Z1' });
    expect(from({ apiRateLimit: '25' }).apiRateLimit).toBe(25);
    // An imported VPC: private subnets behind its NAT, or public ones.
    expect(from({ vpc: '{"vpcId":"vpc-1","publicSubnetIds":["subnet-1"],"availabilityZones":["eu-west-1a"]}' }).vpc).toEqual({
      vpcId: 'vpc-1',
      publicSubnetIds: ['subnet-1'],
      availabilityZones: ['eu-west-1a'],
    });
  });

  it('refuses what would fail at deploy time, saying which key', () => {
    expect(() => from({ stage: 'my stage' })).toThrow(/invalid stage/);
    expect(() => from({ domainName: 'assisted.example.com' })).toThrow(/domainName and certificateArn go together/);
    expect(() => from({ domainName: 'assisted.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc' })).toThrow(/certificateArn/);
    expect(() => from({ baseDomains: 'not a domain' })).toThrow(/not a domain name/);
    expect(() => from({ baseDomains: 'a.example.com', hostedZones: { 'a.example.com': 'Z1' } })).toThrow(/both/);
    expect(() => from({ vpc: '{"vpcId":"vpc-1","privateSubnetIds":["subnet-1"],"availabilityZones":[]}' })).toThrow(/one zone per subnet/);
    expect(() => from({ vpc: '{"vpcId":"vpc-1","privateSubnetIds":["subnet-1"],"publicSubnetIds":["subnet-2"],"availabilityZones":["a"]}' })).toThrow(
      /publicSubnetIds/,
    );
    expect(() => from({ agentEndpoint: 'http-api' })).toThrow(/agentEndpoint: expected one of function-url, cloudfront/);
    expect(() => from({ agentConcurrency: '2.5' })).toThrow(/agentConcurrency/);
    expect(() => from({ logLevel: 'verbose' })).toThrow(/logLevel/);
    expect(() => from({ hostedZones: '{oops' })).toThrow(/hostedZones: not valid JSON/);
    expect(() => from({ apiRateLimit: '-1' })).toThrow(/apiRateLimit/);
    expect(() => from({ apiGatewayAccountRole: 'mine' })).toThrow(/apiGatewayAccountRole/);
  });

  it('reads how people sign in: the sign-in domain, threat protection and one federated identity provider', () => {
    expect(from({}).signIn).toEqual({ threatProtection: false });
    expect(from({ signInDomainPrefix: 'acme-assisted', signInThreatProtection: 'true' }).signIn).toEqual({
      domainPrefix: 'acme-assisted',
      threatProtection: true,
    });
    expect(
      from({
        federationOidcIssuer: 'https://login.example.com',
        federationOidcClientId: 'abc',
        federationOidcClientSecretName: 'assisted/oidc',
        federationName: 'Corp',
      }).signIn.federation,
    ).toEqual({ type: 'oidc', name: 'Corp', issuer: 'https://login.example.com', clientId: 'abc', clientSecretName: 'assisted/oidc', emailAttribute: 'email' });
    expect(from({ federationSamlMetadataUrl: 'https://idp.example.com/metadata', federationEmailAttribute: 'mail' }).signIn.federation).toEqual({
      type: 'saml',
      name: 'SAML',
      metadataUrl: 'https://idp.example.com/metadata',
      emailAttribute: 'mail',
    });
  });

  it('refuses sign-in settings Cognito would refuse at deploy time, saying which key', () => {
    expect(() => from({ signInDomainPrefix: 'my-cognito-login' })).toThrow(/signInDomainPrefix.*without "aws"/);
    expect(() => from({ signInDomainPrefix: 'Upper' })).toThrow(/signInDomainPrefix/);
    // The derived prefix would hold a reserved word: the stage needs an explicit prefix.
    expect(() => from({ stage: 'aws-test' })).toThrow(/set context signInDomainPrefix/);
    expect(from({ stage: 'aws-test', signInDomainPrefix: 'assisted-test' }).signIn.domainPrefix).toBe('assisted-test');
    expect(() => from({ signInDomainName: 'login.example.com' })).toThrow(/signInDomainName needs certificateArn/);
    const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/abc';
    expect(() => from({ domainName: 'assisted.example.com', certificateArn, signInDomainName: 'assisted.example.com' })).toThrow(/must differ from domainName/);
    expect(from({ domainName: 'assisted.example.com', certificateArn, signInDomainName: 'login.assisted.example.com' }).signIn.domainName).toBe(
      'login.assisted.example.com',
    );
    expect(() => from({ federationOidcIssuer: 'https://login.example.com' })).toThrow(/federationOidcClientId and federationOidcClientSecretName/);
    expect(() => from({ federationOidcIssuer: 'http://login.example.com', federationOidcClientId: 'a', federationOidcClientSecretName: 's' })).toThrow(
      /federationOidcIssuer/,
    );
    expect(() => from({ federationSamlMetadataUrl: 'https://idp.example.com/m', federationOidcClientId: 'a' })).toThrow(/not both/);
    expect(() => from({ federationSamlMetadataUrl: 'https://idp.example.com/m', federationName: 'Cognito' })).toThrow(/federationName/);
    expect(() => from({ federationSamlMetadataUrl: 'https://idp.example.com/m', federationName: 'ab' })).toThrow(/federationName/);
    expect(() => from({ federationName: 'Corp' })).toThrow(/either OIDC .* or SAML/);
    expect(() => from({ signInThreatProtection: 'yes' })).toThrow(/signInThreatProtection/);
  });
});
