/**
 * The API accepts an identity provider's tokens (issue #20, step 1): a loopback JWKS server stands
 * in for two Cognito user pools (A, the one the service trusts, and B), and the runtime's Api
 * instances verify tokens signed here against it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { SignJWT, UnsecuredJWT, exportJWK, exportSPKI, generateKeyPair, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoStore } from '../../lambdas/adapters/dynamodb/store.js';
import { personalOrgIdOf, userIdOf } from '../../lambdas/domain/auth/identity.js';
import { container } from '../../lambdas/platform/container.js';
import { membershipOf } from '../../lambdas/usecases/users.js';
import { systemClock } from '../../lambdas/ports/clock.js';
import { dynamodbEndpoint } from '../support/dynamodb-local.js';
import { testRuntime } from '../support/runtime.js';

const CLIENT = 'console-client';
const CLI_CLIENT = 'cli-client';
const CLUSTERS = '/api/assisted-install/v2/clusters';

interface SigningKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  kid: string;
  alg: string;
}

async function signingKey(alg: 'RS256' | 'ES256', kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicKey, kid, alg };
}

/** Every log line the runtime and its instances write while the file runs (stdout, stderr, runtime log). */
const captured: string[] = [];
const writes = { stdout: process.stdout.write.bind(process.stdout), stderr: process.stderr.write.bind(process.stderr) };

describe('identity provider tokens', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let jwks: Server;
  let base: string;
  let issuerA: string;
  let issuerB: string;
  let poolA: SigningKey;
  let poolAEc: SigningKey;
  let poolB: SigningKey;
  let stranger: SigningKey;
  let jwksFetches = 0;
  const minted: string[] = [];

  const sign = async (
    claims: JWTPayload,
    options: { key?: SigningKey; kid?: string; iss?: string; sub?: string; expiresIn?: number | string } = {},
  ): Promise<string> => {
    const key = options.key ?? poolA;
    const token = await new SignJWT({ token_use: 'id', aud: CLIENT, ...claims })
      .setProtectedHeader({ alg: key.alg, kid: options.kid ?? key.kid })
      .setIssuer(options.iss ?? issuerA)
      .setSubject(options.sub ?? 'alice')
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(key.privateKey);
    minted.push(token);
    return token;
  };
  /** A Cognito access token: no aud, the app client in client_id. */
  const accessToken = (sub: string, clientId = CLI_CLIENT) =>
    sign({ token_use: 'access', aud: undefined, client_id: clientId, scope: 'openid email', username: sub }, { sub });

  const get = (token: string, path = CLUSTERS) =>
    fetch(`${env.runtime.url}${path}`, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) });

  beforeAll(async () => {
    [poolA, poolAEc, poolB, stranger] = await Promise.all([
      signingKey('RS256', 'pool-a-rs'),
      signingKey('ES256', 'pool-a-ec'),
      signingKey('RS256', 'pool-b-rs'),
      signingKey('RS256', 'not-published'),
    ]);
    const published = async (keys: SigningKey[]) => ({
      keys: await Promise.all(keys.map(async (k) => ({ ...(await exportJWK(k.publicKey)), kid: k.kid, alg: k.alg, use: 'sig' }))),
    });
    const sets: Record<string, unknown> = {
      '/pool-a/.well-known/jwks.json': await published([poolA, poolAEc]),
      '/pool-b/.well-known/jwks.json': await published([poolB]),
    };
    jwks = createServer((request, response) => {
      jwksFetches += 1;
      const set = sets[request.url ?? ''];
      response.writeHead(set ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(set ?? {}));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
    issuerA = `${base}/pool-a`;
    issuerB = `${base}/pool-b`;

    // The Api instances take the environment as it is when the runtime starts them.
    process.env.IDENTITY_PROVIDER_ISSUER = issuerA;
    process.env.IDENTITY_PROVIDER_CLIENT_IDS = `${CLIENT},${CLI_CLIENT}`;
    // Refusals are logged at INFO ("request rejected" with the reason): captured, to be searched for tokens.
    process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
    const capture =
      (stream: 'stdout' | 'stderr') =>
      (chunk: unknown, ...rest: unknown[]) => {
        captured.push(String(chunk));
        return (writes[stream] as (...args: unknown[]) => boolean)(chunk, ...rest);
      };
    process.stdout.write = capture('stdout') as typeof process.stdout.write;
    process.stderr.write = capture('stderr') as typeof process.stderr.write;
    env = await testRuntime({ log: (message: string) => void captured.push(message) });
  }, 180_000);

  afterAll(async () => {
    await env?.close();
    await new Promise((resolve) => jwks?.close(resolve));
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
  });

  it('accepts an ID token and a Cognito access token of the same user, in their personal organisation', async () => {
    const idToken = await sign({ email: 'alice@example.com', email_verified: true });
    const first = await get(idToken);
    expect(first.status, await first.clone().text()).toBe(200);
    expect(await first.json()).toEqual([]);

    const userId = userIdOf(issuerA, 'alice');
    const orgId = personalOrgIdOf(userId);
    const store = container().store;
    expect(await store.memberships.get({ userId })).toMatchObject({ orgId, role: 'admin', version: 1 });
    expect(await store.users.get({ userId })).toMatchObject({ issuer: issuerA, subject: 'alice', email: 'alice@example.com' });
    expect(await store.organisations.get({ orgId })).toMatchObject({ name: "alice@example.com's organisation" });

    const now = new Date().toISOString();
    await store.clusters.create({
      orgId,
      clusterId: '5a1ce000-0000-4000-8000-00000000000a',
      name: 'alices',
      status: 'ready',
      createdAt: now,
      updatedAt: now,
      attributes: {},
    });
    const viaAccess = await get(await accessToken('alice'));
    expect(viaAccess.status).toBe(200);
    expect(((await viaAccess.json()) as { name: string }[]).map((c) => c.name)).toEqual(['alices']);

    // The other key family the pool publishes, and API tokens as before.
    expect((await get(await sign({}, { key: poolAEc }))).status).toBe(200);
    expect((await get(env.adminToken)).status).toBe(200);
  });

  it('gives 20 concurrent first requests of a new user one organisation and one membership', async () => {
    const client = DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint: await dynamodbEndpoint(), region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    );
    const count = async () => {
      const counts: Record<string, number> = { organisation: 0, membership: 0, user: 0 };
      let start: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new ScanCommand({
            TableName: process.env.TABLE_NAME!,
            ExclusiveStartKey: start,
            ProjectionExpression: '#e',
            ExpressionAttributeNames: { '#e': 'entity' },
          }),
        );
        for (const item of page.Items ?? []) if ((item.entity as string) in counts) counts[item.entity as string]! += 1;
        start = page.LastEvaluatedKey;
      } while (start);
      return counts;
    };
    const before = await count();

    const tokens = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? accessToken('racer') : sign({ email: 'racer@example.com' }, { sub: 'racer' }))),
    );
    const answers = await Promise.all(tokens.map((token) => get(token)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));

    expect(await count()).toEqual({ organisation: before.organisation! + 1, membership: before.membership! + 1, user: before.user! + 1 });
    const userId = userIdOf(issuerA, 'racer');
    expect(await container().store.memberships.listByOrg(personalOrgIdOf(userId))).toEqual([expect.objectContaining({ userId, role: 'admin', version: 1 })]);

    // The same race among 20 separate stores and clients, as 20 Lambda containers would run it.
    const identity = { issuer: issuerA, subject: 'twenty-containers' };
    const clients = Array.from(
      { length: 20 },
      () => new DynamoDBClient({ endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB!, region: 'us-east-1', maxAttempts: 8 }),
    );
    const memberships = await Promise.all(
      clients.map((c) => membershipOf({ store: createDynamoStore({ tableName: process.env.TABLE_NAME!, client: c }), clock: systemClock }, identity)),
    );
    expect(new Set(memberships.map((m) => `${m.orgId}/${m.role}/${m.version}`))).toEqual(
      new Set([`${personalOrgIdOf(userIdOf(issuerA, 'twenty-containers'))}/admin/1`]),
    );
    expect(await count()).toEqual({ organisation: before.organisation! + 2, membership: before.membership! + 2, user: before.user! + 2 });
    for (const c of [...clients, client]) c.destroy();
  });

  /** Each refused token, what makes it, and what the refusal must say. */
  const refusals: [string, () => Promise<string>, RegExp][] = [
    ['wrong issuer', () => sign({}, { iss: `${base}/pool-x` }), /not issued by the identity provider this service trusts/],
    ['wrong audience', () => sign({ aud: 'someone-elses-client' }), /another application \(aud\)/],
    ['access token of another app client', () => accessToken('alice', 'someone-elses-client'), /another application \(client_id\)/],
    ['expired', () => sign({}, { expiresIn: Math.floor(Date.now() / 1000) - 120 }), /expired at .*sign in again/],
    ['not valid yet', () => sign({ nbf: Math.floor(Date.now() / 1000) + 600 }), /not valid yet/],
    ['token_use refresh', () => sign({ token_use: 'refresh' }), /token_use/],
    [
      'alg none',
      async () => new UnsecuredJWT({ token_use: 'id', aud: CLIENT }).setIssuer(issuerA).setSubject('alice').setIssuedAt().setExpirationTime('5m').encode(),
      /not signed with an accepted algorithm/,
    ],
    // HS256 keyed with the pool's public key (the algorithm-confusion forgery).
    [
      'HS256 keyed with the public key',
      async () =>
        new SignJWT({ token_use: 'id', aud: CLIENT })
          .setProtectedHeader({ alg: 'HS256', kid: poolA.kid })
          .setIssuer(issuerA)
          .setSubject('alice')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(await exportSPKI(poolA.publicKey))),
      /not signed with an accepted algorithm/,
    ],
    ['key not in the JWKS', () => sign({}, { key: stranger }), /key the identity provider does not publish/],
    ['forged under a published kid', () => sign({}, { key: stranger, kid: poolA.kid }), /signature does not verify/],
    ['another user pool (its issuer and keys)', () => sign({}, { key: poolB, iss: issuerB }), /not issued by the identity provider this service trusts/],
    [
      'no expiry',
      () =>
        new SignJWT({ token_use: 'id', aud: CLIENT })
          .setProtectedHeader({ alg: 'RS256', kid: poolA.kid })
          .setIssuer(issuerA)
          .setSubject('alice')
          .sign(poolA.privateKey),
      /lacks the "exp" claim/,
    ],
    ['malformed', async () => 'eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln', /identity token is malformed: its header or payload/],
    // Cut short when copied (issue 45): the answer names the kind of token it looked like.
    ['an API token cut short', async () => 'ac1.someorganisation.sometokenid', /API token is malformed or unknown: it has 3 of the 4 parts/],
    [
      'an identity token cut short',
      async () => (await sign({})).split('.').slice(0, 2).join('.'),
      /identity token is malformed: it has 2 of the 3 parts a JWT has/,
    ],
  ];
  for (const [name, make, reason] of refusals) {
    it(`refuses ${name} with 401 in the infra_error shape, saying why`, async () => {
      const token = await make();
      minted.push(token);
      const response = await get(token);
      const text = await response.text();
      expect(response.status, text).toBe(401);
      const body = JSON.parse(text) as { code: number; message: string };
      expect(Object.keys(body).sort()).toEqual(['code', 'message']);
      expect(body.code).toBe(401);
      expect(body.message).toMatch(reason);
      for (const part of token.split('.')) if (part.length > 8) expect(text).not.toContain(part);
    });
  }

  it('keeps organisations apart: a user of A gets 404 for a cluster of B', async () => {
    const bob = await sign({ email: 'bob@example.com' }, { sub: 'bob' });
    expect((await get(bob)).status).toBe(200);
    const bobsOrg = personalOrgIdOf(userIdOf(issuerA, 'bob'));
    const clusterId = '5a1ce000-0000-4000-8000-00000000000b';
    const now = new Date().toISOString();
    await container().store.clusters.create({ orgId: bobsOrg, clusterId, name: 'bobs', status: 'ready', createdAt: now, updatedAt: now, attributes: {} });

    const alice = await sign({});
    const refused = await get(alice, `${CLUSTERS}/${clusterId}`);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ kind: 'Error', code: '404' });
    expect(((await (await get(alice)).json()) as { name: string }[]).map((c) => c.name)).toEqual(['alices']);
    expect((await get(bob, `${CLUSTERS}/${clusterId}`)).status).toBe(200);
  });

  it('writes no token to any log', () => {
    const log = captured.join('');
    // The capture sees the instances' logs: the refusals above were logged with their reasons.
    expect(log).toMatch(/request rejected/);
    expect(log).toMatch(/not issued by the identity provider this service trusts/);
    expect(minted.length).toBeGreaterThan(30);
    for (const token of minted) {
      for (const part of token.split('.')) if (part.length > 8) expect(log.includes(part), 'a token segment in the log').toBe(false);
    }
    expect(jwksFetches).toBeGreaterThan(0);
  });
});
