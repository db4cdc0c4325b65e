/**
 * Custom resource: puts an ES256 (P-256) private key into the agent signing key secret, once.
 * Secrets Manager can only generate passwords, and the key must never appear in a template or a
 * deploy log, so it is made here, inside the account. A secret that already holds a P-256 key is
 * left alone on every event: replacing it would invalidate every agent token already handed out
 * (they are baked into downloaded discovery images).
 */
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';

const client = new SecretsManagerClient({});

export function isEs256PrivateKey(pem: string | undefined): boolean {
  if (!pem?.includes('PRIVATE KEY')) return false;
  try {
    const key = createPrivateKey(pem);
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}

/** SEC1 PEM ("BEGIN EC PRIVATE KEY"), the form upstream's EC_PRIVATE_KEY_PEM takes. */
export function newEs256PrivateKeyPem(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'sec1', format: 'pem' }).toString();
}

export async function onEvent(event: CloudFormationCustomResourceEvent): Promise<{ PhysicalResourceId: string; Data?: Record<string, string> }> {
  const secretId = String(event.ResourceProperties.SecretArn ?? '');
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
  if (!secretId) throw new Error('SecretArn is required');
  const current = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (isEs256PrivateKey(current.SecretString)) {
    console.log(`secret ${secretId} already holds a P-256 key; kept`);
  } else {
    await client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: newEs256PrivateKeyPem() }));
    console.log(`secret ${secretId}: new P-256 key stored`);
  }
  return { PhysicalResourceId: secretId };
}
