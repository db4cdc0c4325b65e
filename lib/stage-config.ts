/**
 * What differs between deployments, read from CDK context (`-c key=value` or cdk.json). Every key is
 * optional; docs/deploy.md lists them. Values given on the command line arrive as strings, values
 * from cdk.json as JSON, so lists and maps accept both forms.
 */
export interface ImportedVpc {
  vpcId: string;
  /**
   * Where the installer tasks run, one of the two: private subnets with a route to the internet
   * (the VPC's own NAT), or public subnets (an internet gateway route), where each task gets a public
   * IP for its run. The task downloads openshift-install from the client mirror either way.
   */
  privateSubnetIds?: string[];
  publicSubnetIds?: string[];
  /** The subnets' zones, in the same order. */
  availabilityZones: string[];
}

export interface StageConfig {
  stage: string;
  /** dev stacks may be deleted with their data; every other stage keeps and protects it. */
  ephemeral: boolean;
  /** Existing Route53 zones: managed base domain → hosted zone id. */
  hostedZones: Record<string, string>;
  /** Managed base domains the stack creates a public hosted zone for. */
  baseDomains: string[];
  /** Console and API domain (CloudFront alias) and its ACM certificate in us-east-1. */
  domainName?: string;
  certificateArn?: string;
  /** Use this VPC for the installer task instead of creating one. */
  vpc?: ImportedVpc;
  /** A pre-built installer image (registry/repo:tag); without it the image is built from lib/containers/installer at deploy. */
  installerImage?: string;
  alarmEmail?: string;
  /** API Gateway stage throttling (requests per second, burst). */
  apiRateLimit: number;
  apiBurstLimit: number;
  logRetentionDays: number;
  /** Discovery images under orgs/ older than this are deleted; they are rebuilt on the next download. */
  imageRetentionDays: number;
  /** Uploaded host and controller logs older than this are deleted. */
  clusterLogRetentionDays: number;
  /**
   * API Gateway needs an account-wide CloudWatch role for access and execution logs. The stack sets
   * it unless the account's baseline already does (`-c apiGatewayAccountRole=existing`).
   */
  manageApiGatewayAccountRole: boolean;
  /** ENABLE_SOFT_TIMEOUTS for the functions: new clusters warn about overdue hosts instead of failing them. */
  softTimeouts: boolean;
  /** AGENT_DOCKER_IMAGE: the discovery agent hosts boot and are upgraded to (the catalogue's when unset). */
  agentImage?: string;
  /** ENABLE_UPGRADE_AGENT: hosts reporting another agent are told to upgrade (default on, as upstream). */
  upgradeAgent: boolean;
  /**
   * Where discovery agents reach the service: `function-url` (default), a Lambda function URL of
   * their own, so a poll costs one Lambda invocation; or `cloudfront`, the console's domain, where
   * each poll also pays CloudFront and the REST API.
   */
  agentEndpoint: AgentEndpoint;
  /**
   * Reserved concurrency of the agents' function (its only throttle: a function URL has no stage
   * throttling); 0 reserves none. Lambda keeps 10 of the account's concurrency unreserved, so an
   * account at the default quota of new accounts (10) needs 0 here or a quota increase.
   */
  agentConcurrency: number;
  /** Application log level of every function (POWERTOOLS_LOG_LEVEL and Lambda's log level filter). */
  logLevel: LogLevel;
  /** How people sign in: the Amazon Cognito user pool (lib/identity.ts). */
  signIn: SignInConfig;
}

/**
 * An identity provider people may sign in with through the user pool, beside the pool's own
 * email and password: an OIDC issuer, or a SAML 2.0 identity provider.
 */
export type FederatedIdentityProvider =
  | {
      type: 'oidc';
      /** Shown on the hosted sign-in page, and the `identity_provider` a client may ask for. */
      name: string;
      issuer: string;
      clientId: string;
      /** Name or ARN of a Secrets Manager secret whose string is the client secret: it never enters the template. */
      clientSecretName: string;
      /** The claim carrying the user's email. */
      emailAttribute: string;
    }
  | { type: 'saml'; name: string; metadataUrl: string; emailAttribute: string };

export interface SignInConfig {
  /**
   * The Cognito prefix domain of the hosted sign-in pages (`<prefix>.auth.<region>.amazoncognito.com`).
   * Unset: `assisted-<stage>-` and a part of the stack's id, unique without naming the account.
   */
  domainPrefix?: string;
  /** A custom sign-in domain instead, served with the stage's certificate (certificateArn), which must cover it. */
  domainName?: string;
  /**
   * The Plus feature plan with threat protection enforced (compromised credentials, adaptive
   * authentication). Plus bills every monthly active user from the first; Essentials, the default,
   * has a free allowance (docs/deploy.md, "Signing in").
   */
  threatProtection: boolean;
  federation?: FederatedIdentityProvider;
}

export const AGENT_ENDPOINTS = ['function-url', 'cloudfront'] as const;
export type AgentEndpoint = (typeof AGENT_ENDPOINTS)[number];
export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Context = (key: string) => unknown;

const STAGE = /^[A-Za-z0-9-]+$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

function parsed(key: string, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const text = raw.trim();
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new Error(`context ${key}: not valid JSON (${(error as Error).message})`);
    }
  }
  return raw;
}

function stringList(key: string, raw: unknown): string[] {
  const value = parsed(key, raw);
  if (value === undefined || value === null || value === '') return [];
  if (typeof value === 'string')
    return value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  throw new Error(`context ${key}: expected a comma-separated list or a JSON array of strings`);
}

function stringMap(key: string, raw: unknown): Record<string, string> {
  const value = parsed(key, raw);
  if (value === undefined || value === null || value === '') return {};
  if (typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((item) => typeof item === 'string')) {
    return value as Record<string, string>;
  }
  throw new Error(`context ${key}: expected a JSON object of strings`);
}

function optionalString(key: string, raw: unknown, pattern?: RegExp): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string' || (pattern && !pattern.test(raw))) throw new Error(`context ${key}: "${String(raw)}" is not valid`);
  return raw;
}

function flag(key: string, raw: unknown): boolean {
  if (raw === undefined || raw === null || raw === '' || raw === false || raw === 'false') return false;
  if (raw === true || raw === 'true') return true;
  throw new Error(`context ${key}: expected true or false, got "${String(raw)}"`);
}

function positiveNumber(key: string, raw: unknown, fallback: number): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`context ${key}: expected a positive number, got "${String(raw)}"`);
  return value;
}

function nonNegativeInteger(key: string, raw: unknown, fallback: number): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`context ${key}: expected a whole number, 0 or more, got "${String(raw)}"`);
  return value;
}

function oneOf<T extends string>(key: string, raw: unknown, allowed: readonly T[], fallback: T): T {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = String(raw);
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`context ${key}: expected one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

/** Words Cognito refuses in a prefix domain. */
const RESERVED_IN_DOMAIN_PREFIX = /aws|amazon|cognito/;
const DOMAIN_PREFIX = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** What the stack appends to the derived prefix: a dash and 8 characters of the stack's id. */
const DERIVED_PREFIX_SUFFIX_LENGTH = 9;
/** Cognito's rule for identity provider names; "Cognito" itself is the pool's own sign-in. */
const PROVIDER_NAME = /^[^_\p{Z}][\p{L}\p{M}\p{S}\p{N}\p{P}][^_\p{Z}]{1,30}$/u;
const HTTPS_URL = /^https:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;
/** A Secrets Manager secret name (letters, digits and /_+=.@-) or its ARN. */
const SECRET_NAME = /^([A-Za-z0-9/_+=.@-]{1,512}|arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+)$/;
const FEDERATION_KEYS = [
  'federationName',
  'federationOidcIssuer',
  'federationOidcClientId',
  'federationOidcClientSecretName',
  'federationSamlMetadataUrl',
  'federationEmailAttribute',
];
/** The email claim of SAML identity providers (Entra ID, AD FS, Okta's default attribute statement). */
const SAML_EMAIL_CLAIM = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress';

export function derivedDomainPrefix(stage: string): string {
  return `assisted-${stage.toLowerCase()}`;
}

function signInConfig(context: Context, stage: string, consoleDomainName: string | undefined, certificateArn: string | undefined): SignInConfig {
  const domainPrefix = optionalString('signInDomainPrefix', context('signInDomainPrefix'));
  if (domainPrefix !== undefined && (!DOMAIN_PREFIX.test(domainPrefix) || RESERVED_IN_DOMAIN_PREFIX.test(domainPrefix))) {
    throw new Error(
      `context signInDomainPrefix: "${domainPrefix}" is not a Cognito prefix domain: lowercase letters, digits and inner dashes, at most 63, without "aws", "amazon" or "cognito"`,
    );
  }
  const derived = derivedDomainPrefix(stage);
  if (domainPrefix === undefined && (RESERVED_IN_DOMAIN_PREFIX.test(derived) || derived.length + DERIVED_PREFIX_SUFFIX_LENGTH > 63)) {
    throw new Error(
      `stage "${stage}" makes the sign-in prefix domain "${derived}-…", which Cognito refuses (no "aws", "amazon" or "cognito", at most 63 characters): set context signInDomainPrefix`,
    );
  }
  const domainName = optionalString('signInDomainName', context('signInDomainName'), DOMAIN);
  if (domainName && !certificateArn) {
    throw new Error(
      "context signInDomainName needs certificateArn: the sign-in pages are served by CloudFront with the stage's us-east-1 certificate, which must cover this name too",
    );
  }
  if (domainName && domainPrefix) throw new Error('context signInDomainName and signInDomainPrefix: give one, the user pool has one domain');
  if (domainName && domainName === consoleDomainName) {
    throw new Error(
      "context signInDomainName must differ from domainName: the console's CloudFront distribution holds that name, and Cognito's sign-in pages are a distribution of their own",
    );
  }
  return {
    ...(domainPrefix ? { domainPrefix } : {}),
    ...(domainName ? { domainName } : {}),
    threatProtection: flag('signInThreatProtection', context('signInThreatProtection')),
    ...federation(context),
  };
}

function federation(context: Context): { federation?: FederatedIdentityProvider } {
  const given = FEDERATION_KEYS.filter((key) => context(key) !== undefined && context(key) !== null && context(key) !== '');
  if (given.length === 0) return {};
  const url = (key: string) => optionalString(key, context(key), HTTPS_URL);
  const issuer = url('federationOidcIssuer');
  const clientId = optionalString('federationOidcClientId', context('federationOidcClientId'), /^\S{1,255}$/);
  const clientSecretName = optionalString('federationOidcClientSecretName', context('federationOidcClientSecretName'), SECRET_NAME);
  const metadataUrl = url('federationSamlMetadataUrl');
  const oidcGiven = [issuer, clientId, clientSecretName].filter((value) => value !== undefined).length;
  if (metadataUrl && oidcGiven > 0) {
    throw new Error('context federationSamlMetadataUrl and federationOidc…: one federated identity provider, OIDC or SAML, not both');
  }
  if (!metadataUrl && oidcGiven !== 3) {
    throw new Error(
      `context ${given.join(', ')}: a federated identity provider is either OIDC (federationOidcIssuer, federationOidcClientId and federationOidcClientSecretName, the name of a Secrets Manager secret holding the client secret) or SAML (federationSamlMetadataUrl)`,
    );
  }
  const name = optionalString('federationName', context('federationName')) ?? (metadataUrl ? 'SAML' : 'OIDC');
  if (!PROVIDER_NAME.test(name) || name.toLowerCase() === 'cognito') {
    throw new Error(
      `context federationName: "${name}" is not a provider name Cognito accepts (3 to 32 characters, no spaces or underscores at either end, not "Cognito")`,
    );
  }
  const emailAttribute = optionalString('federationEmailAttribute', context('federationEmailAttribute'), /^\S{1,256}$/);
  if (metadataUrl) return { federation: { type: 'saml', name, metadataUrl, emailAttribute: emailAttribute ?? SAML_EMAIL_CLAIM } };
  return {
    federation: { type: 'oidc', name, issuer: issuer!, clientId: clientId!, clientSecretName: clientSecretName!, emailAttribute: emailAttribute ?? 'email' },
  };
}

function importedVpc(raw: unknown): ImportedVpc | undefined {
  const value = parsed('vpc', raw);
  if (value === undefined || value === null || value === '') return undefined;
  const vpc = value as Partial<ImportedVpc>;
  const subnetLists = [vpc.privateSubnetIds, vpc.publicSubnetIds].filter((list) => list !== undefined);
  const subnets = subnetLists[0];
  const ok =
    typeof vpc === 'object' &&
    typeof vpc.vpcId === 'string' &&
    subnetLists.length === 1 &&
    Array.isArray(subnets) &&
    subnets.length > 0 &&
    subnets.every((id) => typeof id === 'string') &&
    Array.isArray(vpc.availabilityZones) &&
    vpc.availabilityZones.length === subnets.length;
  if (!ok) {
    throw new Error(
      'context vpc: expected {"vpcId":"vpc-…","privateSubnetIds":["subnet-…"],"availabilityZones":["…"]} (subnets with a NAT route) or the same with publicSubnetIds (subnets with an internet gateway route), one zone per subnet',
    );
  }
  return {
    vpcId: vpc.vpcId!,
    ...(vpc.privateSubnetIds ? { privateSubnetIds: vpc.privateSubnetIds } : { publicSubnetIds: vpc.publicSubnetIds! }),
    availabilityZones: vpc.availabilityZones!,
  };
}

export function stageConfigFromContext(context: Context): StageConfig {
  const stage = String(context('stage') ?? 'dev');
  if (!STAGE.test(stage)) throw new Error(`invalid stage "${stage}": use letters, digits and dashes`);
  const domainName = optionalString('domainName', context('domainName'), DOMAIN);
  const certificateArn = optionalString('certificateArn', context('certificateArn'), /^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[A-Za-z0-9-]+$/);
  if (!!domainName !== !!certificateArn) {
    throw new Error('context domainName and certificateArn go together: CloudFront serves a custom domain only with an ACM certificate from us-east-1');
  }
  const hostedZones = stringMap('hostedZones', context('hostedZones'));
  const baseDomains = stringList('baseDomains', context('baseDomains'));
  for (const domain of [...baseDomains, ...Object.keys(hostedZones)]) {
    if (!DOMAIN.test(domain)) throw new Error(`managed base domain "${domain}" is not a domain name`);
  }
  const both = baseDomains.filter((domain) => domain in hostedZones);
  if (both.length > 0) throw new Error(`base domain(s) ${both.join(', ')} given both as existing hostedZones and as baseDomains to create`);
  const accountRole = optionalString('apiGatewayAccountRole', context('apiGatewayAccountRole'), /^(managed|existing)$/) ?? 'managed';
  return {
    stage,
    ephemeral: stage === 'dev',
    hostedZones,
    baseDomains,
    domainName,
    certificateArn,
    vpc: importedVpc(context('vpc')),
    installerImage: optionalString('installerImage', context('installerImage'), /^[^\s]+$/),
    alarmEmail: optionalString('alarmEmail', context('alarmEmail'), /^[^@\s]+@[^@\s]+$/),
    apiRateLimit: positiveNumber('apiRateLimit', context('apiRateLimit'), 100),
    apiBurstLimit: positiveNumber('apiBurstLimit', context('apiBurstLimit'), 200),
    logRetentionDays: positiveNumber('logRetentionDays', context('logRetentionDays'), 30),
    imageRetentionDays: positiveNumber('imageRetentionDays', context('imageRetentionDays'), 14),
    clusterLogRetentionDays: positiveNumber('clusterLogRetentionDays', context('clusterLogRetentionDays'), 90),
    manageApiGatewayAccountRole: accountRole === 'managed',
    softTimeouts: flag('softTimeouts', context('softTimeouts')),
    agentImage: optionalString('agentImage', context('agentImage'), /^[^\s]+$/),
    upgradeAgent: context('upgradeAgent') === undefined ? true : flag('upgradeAgent', context('upgradeAgent')),
    agentEndpoint: oneOf('agentEndpoint', context('agentEndpoint'), AGENT_ENDPOINTS, 'function-url'),
    agentConcurrency: nonNegativeInteger('agentConcurrency', context('agentConcurrency'), 20),
    logLevel: oneOf('logLevel', String(context('logLevel') ?? '').toUpperCase(), LOG_LEVELS, 'WARN'),
    signIn: signInConfig(context, stage, domainName, certificateArn),
  };
}
