/**
 * The agent signing key in AWS: the custom resource that puts a P-256 key into the secret once, and
 * the functions' cold-start read of it (lambdas/platform/config.ts), against a mocked Secrets Manager.
 */
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isEs256PrivateKey, newEs256PrivateKeyPem, onEvent } from '../../lib/signing-key/handler.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AgentSigningKey-AbCdEf';
const secrets = mockClient(SecretsManagerClient);

function event(requestType: 'Create' | 'Update' | 'Delete'): CloudFormationCustomResourceEvent {
  return {
    RequestType: requestType,
    ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:provider',
    ResponseURL: 'https://127.0.0.1/unused',
    StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/AssistedCloud-staging/1',
    RequestId: 'request-1',
    LogicalResourceId: 'AgentSigningKey',
    ResourceType: 'Custom::AgentSigningKey',
    ResourceProperties: { ServiceToken: 'unused', SecretArn: SECRET_ARN },
    ...(requestType === 'Create' ? {} : { PhysicalResourceId: SECRET_ARN, OldResourceProperties: {} }),
  } as CloudFormationCustomResourceEvent;
}

beforeEach(() => secrets.reset());
afterEach(() => vi.restoreAllMocks());

describe('agent signing key custom resource', () => {
  it('replaces the generated password with a P-256 key on create', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'a-32-character-generated-password' });
    secrets.on(PutSecretValueCommand).resolves({});
    expect(await onEvent(event('Create'))).toEqual({ PhysicalResourceId: SECRET_ARN });
    const puts = secrets.commandCalls(PutSecretValueCommand);
    expect(puts).toHaveLength(1);
    const pem = puts[0]!.args[0].input.SecretString!;
    expect(pem).toMatch(/^-----BEGIN EC PRIVATE KEY-----\n/);
    expect(isEs256PrivateKey(pem)).toBe(true);
    // The stored key signs agent tokens the way the API does.
    expect((await issueAgentToken(pem, { orgId: 'o', infraEnvId: 'i' })).split('.')).toHaveLength(3);
  });

  it('keeps a key that is already there, on create and update', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    secrets.on(GetSecretValueCommand).resolves({ SecretString: newEs256PrivateKeyPem() });
    await onEvent(event('Create'));
    await onEvent(event('Update'));
    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it('does nothing on delete: the secret goes (or stays) with its own removal policy', async () => {
    expect(await onEvent(event('Delete'))).toEqual({ PhysicalResourceId: SECRET_ARN });
    expect(secrets.calls()).toHaveLength(0);
  });

  it('tells ES256 keys from other keys and from text', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString();
    const p256pkcs8 = createPrivateKey(newEs256PrivateKeyPem()).export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(isEs256PrivateKey(rsa)).toBe(false);
    expect(isEs256PrivateKey(p384)).toBe(false);
    expect(isEs256PrivateKey('-----BEGIN EC PRIVATE KEY-----\ngarbage\n-----END EC PRIVATE KEY-----')).toBe(false);
    expect(isEs256PrivateKey(undefined)).toBe(false);
    expect(isEs256PrivateKey(p256pkcs8)).toBe(true);
  });
});

describe('functions reading the key at cold start', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    vi.resetModules();
  });

  it('resolves EC_PRIVATE_KEY_SECRET_ARN once, when the module loads', async () => {
    const pem = newEs256PrivateKeyPem();
    secrets.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({ SecretString: pem });
    process.env = { ...saved, EC_PRIVATE_KEY_SECRET_ARN: SECRET_ARN, EC_PRIVATE_KEY_PEM: '', AWS_REGION: 'eu-west-1' };
    delete process.env.EC_PRIVATE_KEY_PEM;
    vi.resetModules();
    const { configFromEnvironment } = await import('../../lambdas/platform/config.js');
    const env = { TABLE_NAME: 't', FILES_BUCKET: 'f', IMAGES_BUCKET: 'i', LOGS_BUCKET: 'l', EC_PRIVATE_KEY_SECRET_ARN: SECRET_ARN };
    expect(configFromEnvironment(env).agentSigningKeyPem).toBe(pem);
    expect(configFromEnvironment(env).agentSigningKeyPem).toBe(pem);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    // Another secret than the one read at load is not silently answered with it.
    expect(configFromEnvironment({ ...env, EC_PRIVATE_KEY_SECRET_ARN: `${SECRET_ARN}-other` }).agentSigningKeyPem).toBeUndefined();
  });

  it('prefers EC_PRIVATE_KEY_PEM, as the embedded runtime sets it, and then never calls Secrets Manager', async () => {
    const pem = newEs256PrivateKeyPem();
    process.env = { ...saved, EC_PRIVATE_KEY_SECRET_ARN: SECRET_ARN, EC_PRIVATE_KEY_PEM: pem };
    vi.resetModules();
    const { configFromEnvironment } = await import('../../lambdas/platform/config.js');
    expect(
      configFromEnvironment({ TABLE_NAME: 't', FILES_BUCKET: 'f', IMAGES_BUCKET: 'i', LOGS_BUCKET: 'l', EC_PRIVATE_KEY_PEM: pem }).agentSigningKeyPem,
    ).toBe(pem);
    expect(secrets.calls()).toHaveLength(0);
  });
});
