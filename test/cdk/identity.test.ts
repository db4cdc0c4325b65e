/**
 * Sign-in in AWS (lib/identity.ts): the Cognito user pool, the console's app client, the hosted
 * sign-in domain, the optional federated identity provider, and the API functions' settings that
 * tell the console where to sign in. Four stacks synthesized together once, bundling skipped.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_API_FUNCTION, AssistedStack, REST_API_FUNCTION, loadCatalogue } from '../../lib/assisted-stack.js';
import { addComplianceChecks } from '../../lib/compliance.js';
import { withConnectSources } from '../../lib/console-site.js';
import { stageConfigFromContext } from '../../lib/stage-config.js';
import { identityProviderFromEnvironment } from '../../lambdas/platform/config.js';

type Json = Record<string, any>;
type Resource = { Type: string; Properties: Json; DeletionPolicy?: string; DependsOn?: string[]; Metadata?: Json };

const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-1111-2222-3333-444455556666';
const contexts: Record<string, Json> = {
  staging: { stage: 'staging' },
  dev: { stage: 'dev' },
  // As `-c key=value` passes them.
  oidc: {
    stage: 'oidc',
    federationName: 'Corp',
    federationOidcIssuer: 'https://login.example.com/tenant',
    federationOidcClientId: 'assisted-cloud',
    federationOidcClientSecretName: 'assisted/oidc-client-secret',
  },
  saml: {
    stage: 'saml',
    domainName: 'assisted.example.com',
    certificateArn: CERTIFICATE,
    signInDomainName: 'login.assisted.example.com',
    signInThreatProtection: 'true',
    federationSamlMetadataUrl: 'https://idp.example.com/metadata.xml',
  },
};

/** IDENTITY_PROVIDER_* as lambdas/platform/config.ts reads them. */
const SETTINGS = [
  'IDENTITY_PROVIDER_ISSUER',
  'IDENTITY_PROVIDER_CLIENT_IDS',
  'IDENTITY_PROVIDER_CONSOLE_CLIENT_ID',
  'IDENTITY_PROVIDER_AUTHORIZATION_URL',
  'IDENTITY_PROVIDER_TOKEN_URL',
  'IDENTITY_PROVIDER_SIGN_OUT_URL',
];

describe('sign-in: the Cognito user pool and the console client', { timeout: 120_000 }, () => {
  const outdir = mkdtempSync(join(tmpdir(), 'assisted-cdk-identity-'));
  const templates: Record<string, Template> = {};
  const resources: Record<string, Record<string, Resource>> = {};
  let violations: unknown[] = [];
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  beforeAll(() => {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const stacks = Object.entries(contexts).map(
      ([name, context]) => [name, new AssistedStack(app, `AssistedCloud-${name}`, { config: stageConfigFromContext((key) => context[key]) })] as const,
    );
    addComplianceChecks(app);
    app.synth();
    const reportFile = join(outdir, 'validation-report.json');
    if (existsSync(reportFile)) violations = (JSON.parse(readFileSync(reportFile, 'utf8')) as Json).pluginReports.flatMap((r: Json) => r.violations);
    for (const [name, stack] of stacks) {
      const json = JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.template.json`), 'utf8')) as Json;
      templates[name] = Template.fromJSON(json);
      resources[name] = json.Resources;
    }
  }, 120_000);

  const only = (name: string, type: string): [string, Resource] => {
    const found = Object.entries(resources[name]!).filter(([, r]) => r.Type === type);
    expect(found, `${name}: ${type}`).toHaveLength(1);
    return found[0]!;
  };
  const functionOf = (name: string, fn: string) =>
    Object.entries(resources[name]!).find(([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith(`${fn}Function`))!;
  const distributionId = (name: string) => only(name, 'AWS::CloudFront::Distribution')[0];

  it('passes cdk-nag and CloudFormation validation with and without federation', () => {
    expect(violations).toEqual([]);
  });

  it('has a user pool people sign up to with a verified email, a strong password and optional TOTP', () => {
    const [, pool] = only('staging', 'AWS::Cognito::UserPool');
    expect(pool.DeletionPolicy).toBe('Retain');
    expect(pool.Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
      UsernameAttributes: ['email'],
      UsernameConfiguration: { CaseSensitive: false },
      AutoVerifiedAttributes: ['email'],
      UserAttributeUpdateSettings: { AttributesRequireVerificationBeforeUpdate: ['email'] },
      Schema: [{ Name: 'email', Required: true, Mutable: true }],
      Policies: { PasswordPolicy: { MinimumLength: 12, RequireLowercase: true, RequireUppercase: true, RequireNumbers: true, RequireSymbols: true } },
      MfaConfiguration: 'OPTIONAL',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
      DeletionProtection: 'ACTIVE',
      UserPoolTier: 'ESSENTIALS',
    });
    expect(pool.Properties.Policies.PasswordPolicy.MinimumLength).toBeGreaterThanOrEqual(12);
    // No SMS: no SNS role, no SMS configuration.
    expect(pool.Properties.SmsConfiguration).toBeUndefined();
    expect(Object.keys(resources.staging!).filter((id) => id.startsWith('SignIn') && resources.staging![id]!.Type === 'AWS::IAM::Role')).toEqual([]);
    // The Essentials plan's missing threat protection and the optional MFA are acknowledged, with their reasons, on the pool only.
    const acknowledged = (pool.Metadata?.cdk_nag?.rules_to_suppress ?? []).map((rule: Json) => rule.id);
    expect(acknowledged).toEqual(expect.arrayContaining(['AwsSolutions-COG2', 'AwsSolutions-COG8']));
  });

  it('keeps the pool of every stage but dev, and protects it from deletion', () => {
    const [, dev] = only('dev', 'AWS::Cognito::UserPool');
    expect(dev.DeletionPolicy).toBe('Delete');
    expect(dev.Properties.DeletionProtection).toBe('INACTIVE');
  });

  it('gives the console a public client: authorization code only, no secret, callback and sign-out on the distribution', () => {
    const distribution = distributionId('staging');
    const url = (path: string) => ({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distribution, 'DomainName'] }, path]] });
    templates.staging!.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthScopes: ['openid', 'email', 'profile'],
      CallbackURLs: [url('/sign-in/callback')],
      LogoutURLs: [url('/')],
      SupportedIdentityProviders: ['COGNITO'],
      PreventUserExistenceErrors: 'ENABLED',
      ExplicitAuthFlows: ['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      EnableTokenRevocation: true,
      IdTokenValidity: 60,
      AccessTokenValidity: 60,
      TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes', RefreshToken: 'minutes' },
    });
    const [, client] = only('staging', 'AWS::Cognito::UserPoolClient');
    expect(client.Properties.RefreshTokenValidity).toBeLessThanOrEqual(30 * 24 * 60);
  });

  it('serves the hosted sign-in pages on a Cognito prefix domain unique to the stack', () => {
    const [, domain] = only('staging', 'AWS::Cognito::UserPoolDomain');
    const parts = domain.Properties.Domain['Fn::Join'][1] as unknown[];
    expect(parts[0]).toBe('assisted-staging-');
    expect(JSON.stringify(parts[1])).toContain('AWS::StackId');
    expect(domain.Properties.CustomDomainConfig).toBeUndefined();
  });

  it('tells the API functions, and only them, which pool and client to trust and where the console signs in', () => {
    const [poolId] = only('staging', 'AWS::Cognito::UserPool');
    const [clientId] = only('staging', 'AWS::Cognito::UserPoolClient');
    const [domainId] = only('staging', 'AWS::Cognito::UserPoolDomain');
    const hosted = (path: string) => ({ 'Fn::Join': ['', ['https://', { Ref: domainId }, '.auth.', { Ref: 'AWS::Region' }, `.amazoncognito.com${path}`]] });
    for (const fn of [REST_API_FUNCTION, AGENT_API_FUNCTION]) {
      const [, resource] = functionOf('staging', fn);
      expect(resource.Properties.Environment.Variables, fn).toMatchObject({
        IDENTITY_PROVIDER_ISSUER: { 'Fn::Join': ['', ['https://cognito-idp.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, '/', { Ref: poolId }]] },
        IDENTITY_PROVIDER_CLIENT_IDS: { Ref: clientId },
        IDENTITY_PROVIDER_CONSOLE_CLIENT_ID: { Ref: clientId },
        IDENTITY_PROVIDER_AUTHORIZATION_URL: hosted('/oauth2/authorize'),
        IDENTITY_PROVIDER_TOKEN_URL: hosted('/oauth2/token'),
        IDENTITY_PROVIDER_SIGN_OUT_URL: hosted('/logout'),
      });
      // Cognito's JWKS sits where the API looks by default (<issuer>/.well-known/jwks.json).
      expect(resource.Properties.Environment.Variables.IDENTITY_PROVIDER_JWKS_URL).toBeUndefined();
    }
    for (const spec of loadCatalogue().functions.filter((f) => f.name !== REST_API_FUNCTION)) {
      const variables = functionOf('staging', spec.name)[1].Properties.Environment.Variables as Json;
      expect(
        Object.keys(variables).filter((key) => SETTINGS.includes(key)),
        spec.name,
      ).toEqual([]);
    }
  });

  it('sets what the API reads as a valid identity provider, once CloudFormation resolves it', () => {
    const [poolId] = only('staging', 'AWS::Cognito::UserPool');
    const [clientId] = only('staging', 'AWS::Cognito::UserPoolClient');
    const [domainId] = only('staging', 'AWS::Cognito::UserPoolDomain');
    const refs: Record<string, string> = {
      'AWS::Region': 'eu-west-1',
      'AWS::URLSuffix': 'amazonaws.com',
      [poolId]: 'eu-west-1_AbC123def',
      [clientId]: '1example23456789abcdefghij',
      [domainId]: 'assisted-staging-1a2b3c4d',
    };
    const resolve = (value: unknown): string => {
      if (typeof value === 'string') return value;
      const expression = value as Json;
      if (expression.Ref) return refs[expression.Ref as string] ?? expect.unreachable(`Ref ${expression.Ref}`);
      if (expression['Fn::Join']) return (expression['Fn::Join'][1] as unknown[]).map(resolve).join(expression['Fn::Join'][0]);
      return expect.unreachable(JSON.stringify(value));
    };
    const variables = functionOf('staging', REST_API_FUNCTION)[1].Properties.Environment.Variables as Json;
    const env = Object.fromEntries(SETTINGS.map((key) => [key, resolve(variables[key])]));
    expect(identityProviderFromEnvironment(env)).toMatchObject({
      issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC123def',
      clientIds: ['1example23456789abcdefghij'],
      jwksUrl: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC123def/.well-known/jwks.json',
    });
    expect(env.IDENTITY_PROVIDER_AUTHORIZATION_URL).toBe('https://assisted-staging-1a2b3c4d.auth.eu-west-1.amazoncognito.com/oauth2/authorize');
  });

  it("lets the console call the pool's token endpoint, and no other origin more", () => {
    const [domainId] = only('staging', 'AWS::Cognito::UserPoolDomain');
    const policies = Object.values(resources.staging!).filter((r) => r.Type === 'AWS::CloudFront::ResponseHeadersPolicy');
    const csp = policies.map((r) => r.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig?.ContentSecurityPolicy).filter(Boolean);
    expect(csp).toHaveLength(1);
    const [separator, parts] = csp[0].ContentSecurityPolicy['Fn::Join'] as [string, unknown[]];
    expect(separator).toBe('');
    expect(parts[0]).toMatch(/connect-src 'self' https:\/\/$/);
    expect(parts.slice(1, 5)).toEqual([
      { Ref: domainId },
      '.auth.',
      { Ref: 'AWS::Region' },
      expect.stringMatching(/^\.amazoncognito\.com; object-src 'none';/),
    ]);
    expect(withConnectSources("default-src 'self'; connect-src 'self'; form-action 'self'", ['https://a.example.com'])).toBe(
      "default-src 'self'; connect-src 'self' https://a.example.com; form-action 'self'",
    );
    expect(() => withConnectSources("default-src 'self'", ['https://a.example.com'])).toThrow(/no connect-src/);
  });

  it('adds no federated identity provider unless one is configured', () => {
    templates.staging!.resourceCountIs('AWS::Cognito::UserPoolIdentityProvider', 0);
  });

  it('federates an OIDC issuer, its client secret a Secrets Manager reference, and offers it on the console client', () => {
    const [providerId, provider] = only('oidc', 'AWS::Cognito::UserPoolIdentityProvider');
    expect(provider.Properties).toMatchObject({
      ProviderName: 'Corp',
      ProviderType: 'OIDC',
      ProviderDetails: {
        oidc_issuer: 'https://login.example.com/tenant',
        client_id: 'assisted-cloud',
        client_secret: '{{resolve:secretsmanager:assisted/oidc-client-secret:SecretString:::}}',
        authorize_scopes: 'openid email profile',
      },
      AttributeMapping: { email: 'email', email_verified: 'email_verified' },
    });
    const [, client] = only('oidc', 'AWS::Cognito::UserPoolClient');
    expect(client.Properties.SupportedIdentityProviders).toEqual(['COGNITO', { Ref: providerId }]);
    expect(client.DependsOn).toContain(providerId);
  });

  it('federates a SAML identity provider by its metadata URL; a custom sign-in domain and threat protection when asked', () => {
    const [providerId, provider] = only('saml', 'AWS::Cognito::UserPoolIdentityProvider');
    expect(provider.Properties).toMatchObject({
      ProviderName: 'SAML',
      ProviderType: 'SAML',
      ProviderDetails: { MetadataURL: 'https://idp.example.com/metadata.xml' },
      AttributeMapping: { email: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress' },
    });
    templates.saml!.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      SupportedIdentityProviders: ['COGNITO', { Ref: providerId }],
      // The console answers on its own domain and on CloudFront's.
      CallbackURLs: [
        'https://assisted.example.com/sign-in/callback',
        { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId('saml'), 'DomainName'] }, '/sign-in/callback']] },
      ],
    });
    templates.saml!.hasResourceProperties('AWS::Cognito::UserPoolDomain', {
      Domain: 'login.assisted.example.com',
      CustomDomainConfig: { CertificateArn: CERTIFICATE },
    });
    templates.saml!.hasResourceProperties('AWS::Cognito::UserPool', {
      UserPoolTier: 'PLUS',
      UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
    });
    const [, pool] = only('saml', 'AWS::Cognito::UserPool');
    expect((pool.Metadata?.cdk_nag?.rules_to_suppress ?? []).map((rule: Json) => rule.id)).not.toContain('AwsSolutions-COG8');
    const [, api] = functionOf('saml', REST_API_FUNCTION);
    expect(api.Properties.Environment.Variables.IDENTITY_PROVIDER_AUTHORIZATION_URL).toEqual({
      'Fn::Join': ['', ['https://', { Ref: only('saml', 'AWS::Cognito::UserPoolDomain')[0] }, '/oauth2/authorize']],
    });
    templates.saml!.hasOutput('SignInDomainTarget', { Value: { 'Fn::GetAtt': [only('saml', 'AWS::Cognito::UserPoolDomain')[0], 'CloudFrontDistribution'] } });
  });
});
