/**
 * Settings every function reads from its environment. The CDK stack sets them in AWS; the
 * embedded runtime sets the same variables (with local endpoints) before it loads a handler.
 */
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
}

function jsonMap(name: string, raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  const parsed: unknown = JSON.parse(raw);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${name} must be a JSON object of strings`);
  }
  return parsed as Record<string, string>;
}

export function configFromEnvironment(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const required = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`environment variable ${name} is not set`);
    return value;
  };
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
    agentSigningKeyPem: env.EC_PRIVATE_KEY_PEM,
    imageUrlTtlSeconds: Number(env.IMAGE_URL_TTL_SECONDS ?? 4 * 3600),
  };
}
