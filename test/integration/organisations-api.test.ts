/**
 * Organisations, members and invitations through the API (issue #20), with people signed in
 * through a loopback identity provider: inviting, joining with a role, tokens that die with their
 * owner's membership, the last-admin rule (also when two admins demote each other at once), and
 * the audit trail that only admins read.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userIdOf } from '../../lambdas/domain/auth/identity.js';
import { container } from '../../lambdas/platform/container.js';
import { PULL_SECRET } from '../support/fixtures.js';
import { startIdentityIssuer, type IdentityIssuer } from '../support/identity-issuer.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';
import { agentUnitOf } from '../support/upstream-agent.js';

const API = '/api/assisted-install/v2';

describe('organisations, members and invitations', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let idp: IdentityIssuer;
  const tokens: Record<string, string> = {};

  const call = async (credential: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${env.runtime.url}${API}${path}`, {
      method,
      headers: { Authorization: `Bearer ${credential}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown> & Record<string, unknown>[]) : undefined, text };
  };
  const userId = (subject: string) => userIdOf(idp.issuer, subject);
  const orgOf = async (who: string) => (await call(tokens[who]!, 'GET', '/organizations')).body![0] as { id: string; role: string; name: string };

  beforeAll(async () => {
    idp = await startIdentityIssuer();
    Object.assign(process.env, idp.environment);
    env = await testRuntime();
    for (const [who, email] of [
      ['alice', 'alice@example.com'],
      ['bob', 'bob@example.com'],
      ['carol', 'carol@example.com'],
      ['dave', 'dave@example.com'],
    ] as const) {
      tokens[who] = await idp.idToken(who, email);
    }
  }, 180_000);

  afterAll(async () => {
    await env?.close();
    await idp?.close();
    for (const name of Object.keys(idp?.environment ?? {})) delete process.env[name];
  });

  it('gives a first sign-in its own organisation, with the person as its only admin', async () => {
    const listed = await call(tokens.alice!, 'GET', '/organizations');
    expect(listed.status, listed.text).toBe(200);
    expectMatchesSchema('ListOrganizations', 200, listed.body);
    // Who the caller is comes with it: a person's email; an API token's id and name (below).
    expect(listed.body).toEqual([
      expect.objectContaining({
        role: 'admin',
        member_count: 1,
        name: "alice@example.com's organisation",
        user_id: userId('alice'),
        email: 'alice@example.com',
      }),
    ]);
    expect(listed.body![0]).not.toHaveProperty('api_token_name');
    const org = listed.body![0] as { id: string };

    const got = await call(tokens.alice!, 'GET', `/organizations/${org.id}`);
    expectMatchesSchema('GetOrganization', 200, got.body);
    const renamed = await call(tokens.alice!, 'PATCH', `/organizations/${org.id}`, { name: '  Example Telco  ' });
    expect(renamed.status, renamed.text).toBe(200);
    expectMatchesSchema('UpdateOrganization', 200, renamed.body);
    expect(renamed.body).toMatchObject({ name: 'Example Telco' });
    expect((await call(tokens.alice!, 'PATCH', `/organizations/${org.id}`, { name: ' ' })).status).toBe(400);

    const members = await call(tokens.alice!, 'GET', `/organizations/${org.id}/members`);
    expectMatchesSchema('ListOrganizationMembers', 200, members.body);
    expect(members.body).toEqual([expect.objectContaining({ user_id: userId('alice'), email: 'alice@example.com', role: 'admin' })]);

    // Another organisation's id is not found, whoever asks; an API token sees its own organisation.
    const bobs = await orgOf('bob');
    for (const path of [`/organizations/${bobs.id}`, `/organizations/${bobs.id}/members`, `/organizations/${bobs.id}/invitations`]) {
      expect((await call(tokens.alice!, 'GET', path)).status, path).toBe(404);
    }
    // Without console settings the console signs in with API tokens only.
    const settings = await fetch(`${env.runtime.url}${API}/sign-in/settings`).then((response) => response.json());
    expectMatchesSchema('GetSignInSettings', 200, settings);
    expect(settings).toEqual({ identity_provider: false });
    const asToken = await call(env.adminToken, 'GET', '/organizations');
    expect(asToken.body).toEqual([expect.objectContaining({ id: 'default', role: 'admin' })]);
    expect(asToken.body![0]).not.toHaveProperty('user_id');
    expect(asToken.body![0]).not.toHaveProperty('email');
    expectMatchesSchema('ListOrganizations', 200, asToken.body);
    const adminTokenId = env.adminToken.split('.')[2];
    const adminTokenRecord = ((await call(env.adminToken, 'GET', '/api-tokens')).body as unknown as { id: string; name: string }[]).find(
      (token) => token.id === adminTokenId,
    )!;
    expect(asToken.body![0]).toMatchObject({ api_token_id: adminTokenId, api_token_name: adminTokenRecord.name });
  });

  it('lets B join A as read-only with a single-use code made for their email, see what A has, and hold a read-only token', async () => {
    const org = await orgOf('alice');
    const cluster = await call(tokens.alice!, 'POST', '/clusters', {
      name: 'alices-cluster',
      openshift_version: '4.16',
      pull_secret: PULL_SECRET,
      base_dns_domain: 'example.com',
    });
    expect(cluster.status, cluster.text).toBe(201);

    const invited = await call(tokens.alice!, 'POST', `/organizations/${org.id}/invitations`, { email: 'Bob@Example.com', role: 'read-only' });
    expect(invited.status, invited.text).toBe(201);
    expectMatchesSchema('CreateOrganizationInvitation', 201, invited.body);
    const code = invited.body!.code as string;
    expect(code).toMatch(/^inv1\./);
    const listed = await call(tokens.alice!, 'GET', `/organizations/${org.id}/invitations`);
    expectMatchesSchema('ListOrganizationInvitations', 200, listed.body);
    expect(listed.body).toEqual([expect.objectContaining({ email: 'Bob@Example.com', role: 'read-only', status: 'pending' })]);
    expect(listed.text).not.toContain(code.split('.')[3]);

    // Only the person it was made for can use it; a mangled code is not found; an API token cannot join.
    expect((await call(tokens.carol!, 'POST', '/organizations/join', { code })).status).toBe(403);
    expect((await call(tokens.bob!, 'POST', '/organizations/join', { code: `${code}x` })).status).toBe(404);
    expect((await call(env.adminToken, 'POST', '/organizations/join', { code })).status).toBe(403);

    const joined = await call(tokens.bob!, 'POST', '/organizations/join', { code });
    expect(joined.status, joined.text).toBe(200);
    expectMatchesSchema('AcceptOrganizationInvitation', 200, joined.body);
    expect(joined.body).toMatchObject({ id: org.id, role: 'read-only', member_count: 2 });
    expect((await call(tokens.bob!, 'POST', '/organizations/join', { code })).status).toBe(409);

    const seen = await call(tokens.bob!, 'GET', '/clusters');
    expect((seen.body as unknown as { name: string }[]).map((c) => c.name)).toEqual(['alices-cluster']);
    expect((await call(tokens.bob!, 'POST', '/clusters', { name: 'nope', openshift_version: '4.16', pull_secret: '{}' })).status).toBe(403);

    // A member's token has at most their role; only admins see every token.
    expect((await call(tokens.bob!, 'POST', '/api-tokens', { name: 'bobs-ci', role: 'user' })).status).toBe(403);
    const bobsToken = await call(tokens.bob!, 'POST', '/api-tokens', { name: 'bobs-ci', role: 'read-only' });
    expect(bobsToken.status, bobsToken.text).toBe(201);
    expect(bobsToken.body).toMatchObject({ owner_user_id: userId('bob'), role: 'read-only' });
    tokens.bobsApiToken = bobsToken.body!.token as string;
    expect((await call(tokens.bobsApiToken, 'GET', '/clusters')).status).toBe(200);
    expect(((await call(tokens.bob!, 'GET', '/api-tokens')).body as unknown as { name: string }[]).map((t) => t.name)).toEqual(['bobs-ci']);
    expect(((await call(tokens.alice!, 'GET', '/api-tokens')).body as unknown as { name: string }[]).map((t) => t.name)).toContain('bobs-ci');
  });

  it('keeps the last admin of an organisation with other members, and changes roles with their tokens', async () => {
    const org = await orgOf('alice');
    const alice = userId('alice');
    const bob = userId('bob');
    for (const [method, body] of [
      ['PATCH', { role: 'user' }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await call(tokens.alice!, method, `/organizations/${org.id}/members/${alice}`, body);
      expect(refused.status, refused.text).toBe(409);
      expect(refused.text).toMatch(/last admin/);
    }
    // Read-only members change nothing; they may leave (not now: see the removal below).
    expect((await call(tokens.bob!, 'PATCH', `/organizations/${org.id}/members/${alice}`, { role: 'read-only' })).status).toBe(403);

    const promoted = await call(tokens.alice!, 'PATCH', `/organizations/${org.id}/members/${bob}`, { role: 'admin' });
    expect(promoted.status, promoted.text).toBe(200);
    expectMatchesSchema('UpdateOrganizationMember', 200, promoted.body);
    // Bob's read-only token stays read-only; demoted again, so is everything of his.
    expect((await call(tokens.bobsApiToken!, 'POST', '/clusters', { name: 'x', openshift_version: '4.16', pull_secret: '{}' })).status).toBe(403);

    // Two admins demoting each other at once: one wins, and an admin is left.
    const [a, b] = await Promise.all([
      call(tokens.alice!, 'PATCH', `/organizations/${org.id}/members/${bob}`, { role: 'read-only' }),
      call(tokens.bob!, 'PATCH', `/organizations/${org.id}/members/${alice}`, { role: 'read-only' }),
    ]);
    // The loser is refused as the last admin (409), or, when the winner's change was already
    // written by the time its request was authorized, as an admin no more (403).
    expect([a.status, b.status].filter((status) => status === 200)).toHaveLength(1);
    expect([409, 403]).toContain(a.status === 200 ? b.status : a.status);
    const stored = await container().store.organisations.get({ orgId: org.id });
    expect(Object.values(stored!.members!).filter((member) => member.role === 'admin')).toHaveLength(1);
    // Put things back as the next test expects them: alice admin, bob read-only.
    if (a.status !== 200) {
      await call(tokens.bob!, 'PATCH', `/organizations/${org.id}/members/${alice}`, { role: 'admin' });
      await call(tokens.alice!, 'PATCH', `/organizations/${org.id}/members/${bob}`, { role: 'read-only' });
    }
    expect((await container().store.memberships.get({ userId: bob }))?.role).toBe('read-only');
  });

  it("makes a token made with a member's admin token that member's too, so it dies with their membership", async () => {
    const org = await orgOf('alice');
    const invited = await call(tokens.alice!, 'POST', `/organizations/${org.id}/invitations`, { email: 'dave@example.com', role: 'admin' });
    expect((await call(tokens.dave!, 'POST', '/organizations/join', { code: invited.body!.code })).status).toBe(200);
    const davesToken = (await call(tokens.dave!, 'POST', '/api-tokens', { name: 'daves', role: 'admin' })).body!.token as string;
    const madeWithIt = await call(davesToken, 'POST', '/api-tokens', { name: 'daves-child', role: 'user' });
    expect(madeWithIt.status, madeWithIt.text).toBe(201);
    expect(madeWithIt.body).toMatchObject({ owner_user_id: userId('dave') });
    expect((await call(tokens.alice!, 'DELETE', `/organizations/${org.id}/members/${userId('dave')}`)).status).toBe(204);
    expect((await call(madeWithIt.body!.token as string, 'GET', '/clusters')).status).toBe(401);
    expect((await call(davesToken, 'GET', '/clusters')).status).toBe(401);
  });

  it("ends the agent tokens and image URLs a member was handed when the membership ends or becomes read-only, and no one else's", async () => {
    const org = await orgOf('alice');
    const clusterId = ((await call(tokens.alice!, 'GET', '/clusters')).body as unknown as { id: string }[])[0]!.id;
    const infraEnv = async (name: string) =>
      (await call(tokens.alice!, 'POST', '/infra-envs', { name, pull_secret: PULL_SECRET, cluster_id: clusterId })).body!.id as string;
    const [erins, erinsNext, alices] = [await infraEnv('erins'), await infraEnv('erins-next'), await infraEnv('alices')];
    const invited = await call(tokens.alice!, 'POST', `/organizations/${org.id}/invitations`, { email: 'erin@example.com', role: 'user' });
    tokens.erin = await idp.idToken('erin', 'erin@example.com');
    expect((await call(tokens.erin, 'POST', '/organizations/join', { code: invited.body!.code })).status).toBe(200);
    const erin = userId('erin');
    const agentTokenFrom = async (who: string, infraEnvId: string) => {
      const ignition = await fetch(`${env.runtime.url}${API}/infra-envs/${infraEnvId}/downloads/files?file_name=discovery.ign`, {
        headers: { Authorization: `Bearer ${tokens[who]}` },
      });
      expect(ignition.status).toBe(200);
      return agentUnitOf(await ignition.text()).token;
    };
    // Each token is used first after the change: no instance has the infra-env's token epoch cached (docs/api.md states the bound when one has).
    const registers = async (agentToken: string, infraEnvId: string) =>
      (
        await fetch(`${env.runtime.url}${API}/infra-envs/${infraEnvId}/hosts`, {
          method: 'POST',
          headers: { 'X-Secret-Key': agentToken, 'Content-Type': 'application/json' },
          body: JSON.stringify({ host_id: randomUUID(), discovery_agent_version: 'quay.io/edge-infrastructure/assisted-installer-agent:test' }),
        })
      ).status;

    // Demoted to read-only: what Erin was handed stops working; Alice's own does not.
    const erinsFirst = await agentTokenFrom('erin', erins);
    const alicesToken = await agentTokenFrom('alice', alices);
    expect((await call(tokens.alice!, 'PATCH', `/organizations/${org.id}/members/${erin}`, { role: 'read-only' })).status).toBe(200);
    expect(await registers(erinsFirst, erins)).toBe(401);
    expect(await registers(alicesToken, alices)).toBe(201);

    // Promoted again, Erin is handed the infra-env's credentials anew; removed, they stop working too.
    expect((await call(tokens.alice!, 'PATCH', `/organizations/${org.id}/members/${erin}`, { role: 'user' })).status).toBe(200);
    const erinsSecond = await agentTokenFrom('erin', erinsNext);
    const imageUrl = (await call(tokens.erin, 'GET', `/infra-envs/${erinsNext}/downloads/image-url`)).body!.url as string;
    expect((await call(tokens.alice!, 'DELETE', `/organizations/${org.id}/members/${erin}`)).status).toBe(204);
    expect(await registers(erinsSecond, erinsNext)).toBe(401);
    const image = await fetch(imageUrl, { method: 'HEAD' });
    expect([401, 403, 404]).toContain(image.status);
    expect(await registers(alicesToken, alices)).toBe(201);
    expect((await container().store.infraEnvs.get({ orgId: org.id, infraEnvId: alices }))?.agentTokenEpoch ?? 0).toBe(0);
  });

  it("removes B: B's API token is refused on its next request, and B's next sign-in gets an organisation of their own", async () => {
    const org = await orgOf('alice');
    const removed = await call(tokens.alice!, 'DELETE', `/organizations/${org.id}/members/${userId('bob')}`);
    expect(removed.status, removed.text).toBe(204);
    const refused = await call(tokens.bobsApiToken!, 'GET', '/clusters');
    expect(refused.status).toBe(401);
    const again = await orgOf('bob');
    expect(again.id).not.toBe(org.id);
    expect(again.role).toBe('admin');
    expect((await call(tokens.bob!, 'GET', '/clusters')).body).toEqual([]);
    expect((await call(tokens.bob!, 'GET', `/organizations/${org.id}`)).status).toBe(404);
  });

  it('withdraws invitations, and shows the audit trail to admins only, without secrets', async () => {
    const org = await orgOf('alice');
    const invited = await call(tokens.alice!, 'POST', `/organizations/${org.id}/invitations`, { email: 'dave@example.com' });
    expect((await call(tokens.alice!, 'DELETE', `/organizations/${org.id}/invitations/${invited.body!.id as string}`)).status).toBe(204);
    const refused = await call(tokens.dave!, 'POST', '/organizations/join', { code: invited.body!.code });
    expect(refused.status).toBe(409);
    expect(refused.text).toMatch(/withdrawn/);
    expect((await call(tokens.alice!, 'POST', `/organizations/${org.id}/invitations`, { email: 'not an email' })).status).toBe(400);

    const audit = await call(tokens.alice!, 'GET', '/events?categories=audit');
    expect(audit.status, audit.text).toBe(200);
    const names = (audit.body as unknown as { name: string; category: string }[]).map((event) => event.name);
    for (const name of [
      'organisation_renamed',
      'invitation_created',
      'member_joined',
      'api_token_created',
      'member_role_changed',
      'member_removed',
      'sign_in_refused',
      'invitation_revoked',
    ]) {
      expect(names, name).toContain(name);
    }
    expect(audit.text).not.toContain(invited.body!.code as string);
    expect(audit.text).not.toContain((tokens.bobsApiToken ?? '').split('.')[3]);
    // A person outside the organisation does not see them; nor does a read-only token of it.
    const readOnly = await call(env.adminToken, 'POST', '/api-tokens', { name: 'ro', role: 'read-only' });
    expect((await call(readOnly.body!.token as string, 'GET', '/events?categories=audit')).status).toBe(403);
  });
});
