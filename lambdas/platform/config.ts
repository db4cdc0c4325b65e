/**
 * Settings every function reads from its environment. The CDK stack sets them in AWS; the
 * embedded runtime sets the same variables (with local endpoints) before it loads a handler.
 */
import type { AgentSettings } from '../domain/agent/agent-protocol.js';
import { catalogueAgentImages } from '../domain/catalogues/catalogues.js';
import { DEFAULT_AGENT_TOKEN_TTL_SECONDS, agentTokenTtlProblem } from '../domain/auth/agent-token.js';
import { auditRetentionDays } from '../domain/auth/audit.js';
import { DEFAULT_LIVE_CAPS, type LiveCaps } from '../domain/events/live-subscriptions.js';
import { DEFAULT_WEBHOOK_RETRIES, webhookEndpointPolicy, type WebhookEndpointPolicy, type WebhookRetrySettings } from '../domain/events/webhooks.js';
import { defaultJwksUrl, type ConsoleSignIn, type IdentityProviderSettings } from '../domain/auth/identity.js';

export interface ServiceConfig {
  tableName: string;
  buckets: { files: string; images: string; logs: string };
  /** Workflow name → state machine ARN. */
  stateMachines: Record<string, string>;
  /** Managed base domain → Route53 hosted zone id. */
  hostedZones: Record<string, string>;
  region: string;
  /** Base URL clients reach the API at (for the URLs the API hands out). */
  publicUrl: string;
  /**
   * PEM of the ES256 key signing agent and pre-signed URL tokens (upstream's EC_PRIVATE_KEY_PEM).
   * Only operations that issue or check agent tokens need it.
   */
  agentSigningKeyPem?: string;
  /** Lifetime of image download URLs, as upstream's IMAGE_EXPIRATION_TIME (default 4 h). */
  imageUrlTtlSeconds: number;
  /**
   * Lifetime of the agent token baked into a discovery image or discovery.ign, from when the image
   * was made (AGENT_TOKEN_TTL_SECONDS, default 14 days; docs/api.md, "Agent tokens").
   */
  agentTokenTtlSeconds: number;
  /** Mirror registries every discovery image carries (MIRROR_REGISTRIES_CONF, MIRROR_REGISTRIES_CA_BUNDLE). */
  mirrorRegistries?: { registriesConf: string; caBundle?: string };
  /**
   * Upstream's ENABLE_SOFT_TIMEOUTS: clusters created while it is on have org_soft_timeouts_enabled,
   * and their overdue hosts and stages are warned about instead of failed (default off, as upstream).
   */
  softTimeouts: boolean;
  /** How often the install workflow re-judges a cluster while it installs (INSTALL_POLL_SECONDS, default 30; tests make it short). */
  installPollSeconds: number;
  /** The discovery agent hosts must run, and what happens to hosts running another. */
  agent: AgentSettings;
  /**
   * The identity provider whose tokens the API accepts beside API tokens (Amazon Cognito's user pool
   * in AWS, any OIDC issuer): IDENTITY_PROVIDER_ISSUER, IDENTITY_PROVIDER_CLIENT_IDS (comma-separated)
   * and optionally IDENTITY_PROVIDER_JWKS_URL. Absent: API tokens only.
   */
  identityProvider?: IdentityProviderSettings;
  /** Webhook deliveries: where endpoints may be, retries, the wait for an answer (docs/api.md, "Webhooks"). */
  webhooks: { endpoints: WebhookEndpointPolicy; retries: WebhookRetrySettings; timeoutMs: number };
  /** The stack's event bus (EVENT_BUS_NAME), or locally a file the events are appended to (LOCAL_EVENT_BUS_FILE). */
  eventBus?: { busName: string } | { file: string };
  /** The WebSocket API: its management endpoint (LIVE_MANAGEMENT_URL) and caps (LIVE_MAX_CONNECTIONS_PER_ORG, LIVE_MAX_MESSAGES_PER_SECOND). */
  live: { managementUrl?: string; caps: LiveCaps };
  /** Days the audit log keeps a record (AUDIT_RETENTION_DAYS, default 400; docs/api.md, "Audit log"). */
  auditRetentionDays: number;
}

/** Plain http only on loopback (a local stand-in, tests); everything else must be https. */
function identityProviderUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} must be a URL, not ${JSON.stringify(raw)}`);
  }
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Error(`${name} must be an https URL (plain http only on loopback), not ${JSON.stringify(raw)}`);
  }
  if (url.search || url.hash || url.username || url.password) throw new Error(`${name} must have no query, fragment or credentials`);
  return raw;
}

export function identityProviderFromEnvironment(env: NodeJS.ProcessEnv = process.env): IdentityProviderSettings | undefined {
  const issuer = env.IDENTITY_PROVIDER_ISSUER || undefined;
  const clientIds = (env.IDENTITY_PROVIDER_CLIENT_IDS ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const jwksUrl = env.IDENTITY_PROVIDER_JWKS_URL || undefined;
  if (!issuer) {
    if (clientIds.length > 0 || jwksUrl) throw new Error('IDENTITY_PROVIDER_CLIENT_IDS and IDENTITY_PROVIDER_JWKS_URL need IDENTITY_PROVIDER_ISSUER');
    return undefined;
  }
  if (clientIds.length === 0) throw new Error('IDENTITY_PROVIDER_ISSUER needs IDENTITY_PROVIDER_CLIENT_IDS: the app client ids whose tokens are accepted');
  const console = consoleSignInFromEnvironment(env, clientIds);
  return {
    // The issuer is compared with `iss` exactly, as the issuer writes it (Cognito's has no trailing slash).
    issuer: identityProviderUrl('IDENTITY_PROVIDER_ISSUER', issuer),
    clientIds,
    jwksUrl: identityProviderUrl('IDENTITY_PROVIDER_JWKS_URL', jwksUrl ?? defaultJwksUrl(issuer)),
    ...(console ? { console } : {}),
  };
}

/**
 * IDENTITY_PROVIDER_CONSOLE_CLIENT_ID (one of the accepted clients), IDENTITY_PROVIDER_AUTHORIZATION_URL,
 * IDENTITY_PROVIDER_TOKEN_URL, optionally IDENTITY_PROVIDER_SIGN_OUT_URL: all or none of the first three.
 */
function consoleSignInFromEnvironment(env: NodeJS.ProcessEnv, clientIds: readonly string[]): ConsoleSignIn | undefined {
  const clientId = env.IDENTITY_PROVIDER_CONSOLE_CLIENT_ID || undefined;
  const authorizationUrl = env.IDENTITY_PROVIDER_AUTHORIZATION_URL || undefined;
  const tokenUrl = env.IDENTITY_PROVIDER_TOKEN_URL || undefined;
  const signOutUrl = env.IDENTITY_PROVIDER_SIGN_OUT_URL || undefined;
  if (!clientId && !authorizationUrl && !tokenUrl && !signOutUrl) return undefined;
  if (!clientId || !authorizationUrl || !tokenUrl) {
    throw new Error(
      'The console signs in with IDENTITY_PROVIDER_CONSOLE_CLIENT_ID, IDENTITY_PROVIDER_AUTHORIZATION_URL and IDENTITY_PROVIDER_TOKEN_URL together: set all three, or none',
    );
  }
  if (!clientIds.includes(clientId))
    throw new Error("IDENTITY_PROVIDER_CONSOLE_CLIENT_ID must be one of IDENTITY_PROVIDER_CLIENT_IDS, or the API would refuse the console's tokens");
  return {
    clientId,
    authorizationUrl: identityProviderUrl('IDENTITY_PROVIDER_AUTHORIZATION_URL', authorizationUrl),
    tokenUrl: identityProviderUrl('IDENTITY_PROVIDER_TOKEN_URL', tokenUrl),
    ...(signOutUrl ? { signOutUrl: identityProviderUrl('IDENTITY_PROVIDER_SIGN_OUT_URL', signOutUrl) } : {}),
    scopes: ['openid', 'email', 'profile'],
  };
}

export function agentSettingsFromEnvironment(env: NodeJS.ProcessEnv = process.env): AgentSettings {
  const cap = env.AGENT_MAX_NEXT_INSTRUCTION_SECONDS || undefined;
  // At least a second: 0 would have every agent poll in a tight loop.
  if (cap !== undefined && !(Number.isInteger(Number(cap)) && Number(cap) >= 1)) {
    throw new Error(`AGENT_MAX_NEXT_INSTRUCTION_SECONDS must be a whole number of seconds, at least 1, not ${JSON.stringify(cap)}`);
  }
  return {
    image: env.AGENT_DOCKER_IMAGE || catalogueAgentImages().agent,
    upgrade: env.ENABLE_UPGRADE_AGENT !== 'false',
    ...(cap !== undefined ? { maxNextInstructionSeconds: Number(cap) } : {}),
  };
}

export function agentTokenTtlFromEnvironment(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.AGENT_TOKEN_TTL_SECONDS || undefined;
  if (raw === undefined) return DEFAULT_AGENT_TOKEN_TTL_SECONDS;
  const problem = agentTokenTtlProblem(raw);
  if (problem) throw new Error(problem);
  return Number(raw);
}

/**
 * In AWS the agent signing key stays in Secrets Manager and the function gets its ARN
 * (EC_PRIVATE_KEY_SECRET_ARN): it is read once per cold start, here at module load, so that
 * configFromEnvironment and container() stay synchronous. EC_PRIVATE_KEY_PEM, as the embedded runtime
 * sets it, wins; the SDK client is loaded only when the secret is actually needed.
 */
async function signingKeyFromSecretsManager(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const secretId = env.EC_PRIVATE_KEY_SECRET_ARN;
  if (!secretId || env.EC_PRIVATE_KEY_PEM) return undefined;
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({ region: env.AWS_REGION });
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (!SecretString) throw new Error(`secret ${secretId} holds no string`);
    return SecretString;
  } finally {
    client.destroy();
  }
}

const signingKeyFromSecret = { arn: process.env.EC_PRIVATE_KEY_SECRET_ARN, pem: await signingKeyFromSecretsManager(process.env) };

function jsonMap(name: string, raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  const parsed: unknown = JSON.parse(raw);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${name} must be a JSON object of strings`);
  }
  const entries = Object.entries(parsed);
  if (!entries.every((entry): entry is [string, string] => typeof entry[1] === 'string')) throw new Error(`${name} must be a JSON object of strings`);
  return Object.fromEntries(entries);
}

/** A whole number of seconds, at least 1; anything else is the default, 30. */
function installPollSecondsFrom(text: string | undefined): number {
  const value = Number(text ?? DEFAULT_INSTALL_POLL_SECONDS);
  return Number.isFinite(value) && value >= 1 ? Math.floor(value) : DEFAULT_INSTALL_POLL_SECONDS;
}
const DEFAULT_INSTALL_POLL_SECONDS = 30;

/** A whole number (milliseconds, or a count), at least 1, or the default when unset. */
function positiveMs(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number, at least 1, not ${JSON.stringify(raw)}`);
  return value;
}

export function configFromEnvironment(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const required = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`environment variable ${name} is not set`);
    return value;
  };
  const identityProvider = identityProviderFromEnvironment(env);
  return {
    tableName: required('TABLE_NAME'),
    buckets: {
      files: required('FILES_BUCKET'),
      images: required('IMAGES_BUCKET'),
      logs: required('LOGS_BUCKET'),
    },
    stateMachines: jsonMap('STATE_MACHINES', env.STATE_MACHINES),
    hostedZones: jsonMap('HOSTED_ZONES', env.HOSTED_ZONES),
    region: env.AWS_REGION ?? 'us-east-1',
    publicUrl: (env.PUBLIC_URL ?? 'http://127.0.0.1:8090').replace(/\/$/, ''),
    agentSigningKeyPem:
      env.EC_PRIVATE_KEY_PEM ??
      (env.EC_PRIVATE_KEY_SECRET_ARN && env.EC_PRIVATE_KEY_SECRET_ARN === signingKeyFromSecret.arn ? signingKeyFromSecret.pem : undefined),
    imageUrlTtlSeconds: Number(env.IMAGE_URL_TTL_SECONDS ?? 4 * 3600),
    agentTokenTtlSeconds: agentTokenTtlFromEnvironment(env),
    softTimeouts: env.ENABLE_SOFT_TIMEOUTS === 'true',
    installPollSeconds: installPollSecondsFrom(env.INSTALL_POLL_SECONDS),
    agent: agentSettingsFromEnvironment(env),
    auditRetentionDays: auditRetentionDays(env.AUDIT_RETENTION_DAYS),
    webhooks: {
      endpoints: webhookEndpointPolicy(env.WEBHOOK_ENDPOINTS),
      retries: {
        baseDelayMs: positiveMs('WEBHOOK_RETRY_BASE_MS', env.WEBHOOK_RETRY_BASE_MS, DEFAULT_WEBHOOK_RETRIES.baseDelayMs),
        maxDelayMs: positiveMs('WEBHOOK_RETRY_MAX_MS', env.WEBHOOK_RETRY_MAX_MS, DEFAULT_WEBHOOK_RETRIES.maxDelayMs),
        windowMs: positiveMs('WEBHOOK_RETRY_WINDOW_MS', env.WEBHOOK_RETRY_WINDOW_MS, DEFAULT_WEBHOOK_RETRIES.windowMs),
      },
      timeoutMs: positiveMs('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, 5_000),
    },
    live: {
      ...(env.LIVE_MANAGEMENT_URL ? { managementUrl: env.LIVE_MANAGEMENT_URL } : {}),
      caps: {
        connectionsPerOrg: positiveMs('LIVE_MAX_CONNECTIONS_PER_ORG', env.LIVE_MAX_CONNECTIONS_PER_ORG, DEFAULT_LIVE_CAPS.connectionsPerOrg),
        messagesPerSecond: positiveMs('LIVE_MAX_MESSAGES_PER_SECOND', env.LIVE_MAX_MESSAGES_PER_SECOND, DEFAULT_LIVE_CAPS.messagesPerSecond),
      },
    },
    ...(env.EVENT_BUS_NAME ? { eventBus: { busName: env.EVENT_BUS_NAME } } : env.LOCAL_EVENT_BUS_FILE ? { eventBus: { file: env.LOCAL_EVENT_BUS_FILE } } : {}),
    ...(identityProvider ? { identityProvider } : {}),
    ...(env.MIRROR_REGISTRIES_CONF
      ? {
          mirrorRegistries: {
            registriesConf: env.MIRROR_REGISTRIES_CONF,
            ...(env.MIRROR_REGISTRIES_CA_BUNDLE ? { caBundle: env.MIRROR_REGISTRIES_CA_BUNDLE } : {}),
          },
        }
      : {}),
  };
}
