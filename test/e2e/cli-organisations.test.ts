/**
 * The built CLI's organisation commands (`orgs`, `members`, `invitations`) as a process against the
 * local stack: the runtime's admin API token shows and renames its organisation and manages
 * invitations; people signed in through a loopback identity provider (their ID tokens as --token)
 * invite, join with the code, change roles, meet the last-admin rule, leave and are removed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../cli/build.js';
import { EXIT } from '../../cli/exit-codes.js';
import { userIdOf } from '../../lambdas/domain/auth/identity.js';
import { startIdentityIssuer, type IdentityIssuer } from '../support/identity-issuer.js';
import { testRuntime } from '../support/runtime.js';

const work = mkdtempSync(path.join(tmpdir(), 'assisted-cli-orgs-'));
const bundle = path.join(work, 'assisted.mjs');
let stack: Awaited<ReturnType<typeof testRuntime>>;
let idp: IdentityIssuer;

/** Runs the CLI asynchronously: the service runs in this very process, a synchronous spawn would starve it. */
function assisted(token: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // No stored login and no ASSISTED_* from the caller's shell: the flags are the only credentials.
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: path.join(work, 'config') };
    delete env.ASSISTED_URL;
    delete env.ASSISTED_TOKEN;
    const child = spawn(process.execPath, [bundle, '--url', stack.runtime.url, '--token', token, ...args], {
      cwd: work,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

const json = <T>(result: { code: number; stdout: string; stderr: string }): T => {
  expect(result.code, result.stderr).toBe(EXIT.ok);
  return JSON.parse(result.stdout) as T;
};

beforeAll(async () => {
  idp = await startIdentityIssuer();
  // The Api instances read the issuer from the environment when the runtime starts them.
  Object.assign(process.env, idp.environment);
  [, stack] = await Promise.all([buildCli({ outfile: bundle }), testRuntime()]);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await idp?.close();
  for (const name of Object.keys(idp?.environment ?? {})) delete process.env[name];
  rmSync(work, { recursive: true, force: true });
});

describe('the assisted CLI: organisations, members, invitations', () => {
  it('shows and renames the organisation and manages invitations with an API token', async () => {
    const admin = stack.adminToken;
    const shown = await assisted(admin, ['orgs', 'show']);
    expect(shown.code, shown.stderr).toBe(EXIT.ok);
    expect(shown.stdout).toMatch(/^id: +default$/m);
    expect(shown.stdout).toMatch(/^your role: admin$/m);
    // Who the login is: the API token, by name and id.
    expect(shown.stdout).toMatch(new RegExp(`^you: +API token ".+" \\(${admin.split('.')[2]}\\)$`, 'm'));
    // API tokens are not members.
    expect(shown.stdout).toMatch(/^members: +0$/m);

    expect(json<{ name: string }>(await assisted(admin, ['orgs', 'rename', 'CLI Telco', '-o', 'json'])).name).toBe('CLI Telco');
    expect(json<{ name: string }>(await assisted(admin, ['orgs', 'show', '--org', 'default', '-o', 'json'])).name).toBe('CLI Telco');
    const blank = await assisted(admin, ['orgs', 'rename', ' ']);
    expect(blank.code).toBe(EXIT.apiRefused);
    expect(blank.stderr).toMatch(/^assisted: renaming organisation default: 400 An organisation needs a name$/m);
    const elsewhere = await assisted(admin, ['orgs', 'show', '--org', 'someone-else']);
    expect(elsewhere.code).toBe(EXIT.apiRefused);
    expect(elsewhere.stderr).toMatch(/404 Organisation someone-else not found/);

    // The code is printed once, with how the person joins.
    const created = await assisted(admin, ['invitations', 'create', '--email', 'carol@example.com', '--role', 'read-only']);
    expect(created.code, created.stderr).toBe(EXIT.ok);
    const code = created.stdout.split('\n')[0]!;
    expect(code).toMatch(/^inv1\./);
    expect(created.stdout).toContain('assisted orgs join CODE');
    expect(created.stdout).toContain(`${stack.runtime.url}/join#${code}`);
    const asJson = json<{ id: string; code: string; join_url: string; status: string; role: string }>(
      await assisted(admin, ['invitations', 'create', '--email', 'dave@example.com', '-o', 'json']),
    );
    expect(asJson).toMatchObject({ status: 'pending', role: 'user', join_url: `${stack.runtime.url}/join#${asJson.code}` });

    const listed = await assisted(admin, ['invitations', 'list']);
    expect(listed.stdout).toMatch(/^ID\s+EMAIL\s+ROLE\s+STATUS\s+EXPIRES\s+INVITED BY$/m);
    expect(listed.stdout).toMatch(/\scarol@example\.com\s+read-only\s+pending\s/);
    expect(listed.stdout).not.toContain(code);
    const revoked = await assisted(admin, ['invitations', 'revoke', asJson.id]);
    expect(revoked.code, revoked.stderr).toBe(EXIT.ok);
    expect(revoked.stderr).toMatch(/withdrawn/);
    const after = json<{ id: string; status: string }[]>(await assisted(admin, ['invitations', 'list', '-o', 'json']));
    expect(after.find((i) => i.id === asJson.id)?.status).toBe('revoked');

    // Joining and leaving are a person's acts: an API token is told so.
    const join = await assisted(admin, ['orgs', 'join', code]);
    expect(join.code).toBe(EXIT.apiRefused);
    expect(join.stderr).toMatch(/403 An invitation is accepted by a person signed in through the identity provider/);
    const leave = await assisted(admin, ['members', 'leave']);
    expect(leave.code).toBe(EXIT.usage);
    expect(leave.stderr).toMatch(/leaving needs a person signed in through the identity provider/);
    expect((await assisted(admin, ['members', 'set-role', 'x@example.com', '--role', 'boss'])).code).toBe(EXIT.usage);
  }, 60_000);

  it('lets people invite, join with the code, change roles, leave and be removed, and keeps the last admin', async () => {
    const alice = await idp.idToken('alice', 'alice@example.com');
    const bob = await idp.idToken('bob', 'bob@example.com');
    const carol = await idp.idToken('carol', 'carol@example.com');
    const aliceId = userIdOf(idp.issuer, 'alice');
    const bobId = userIdOf(idp.issuer, 'bob');

    // A first sign-in gets a personal organisation with the person as its admin.
    const own = json<{ id: string; role: string; member_count: number }>(await assisted(alice, ['orgs', 'show', '-o', 'json']));
    expect(own).toMatchObject({ role: 'admin', member_count: 1 });

    const invited = json<{ code: string; join_url: string }>(await assisted(alice, ['invitations', 'create', '--email', 'bob@example.com', '-o', 'json']));
    // Another person cannot use it; the one it names joins with the console's link as well as the code.
    const wrong = await assisted(carol, ['orgs', 'join', invited.code]);
    expect(wrong.code).toBe(EXIT.apiRefused);
    expect(wrong.stderr).toMatch(/403 This invitation is for another email address/);
    const joined = await assisted(bob, ['orgs', 'join', invited.join_url]);
    expect(joined.code, joined.stderr).toBe(EXIT.ok);
    expect(joined.stdout).toMatch(/^id: +(\S+)$/m);
    expect(joined.stdout).toContain(`id:        ${own.id}`);
    expect(joined.stdout).toMatch(/you joined .* as user/);
    const again = await assisted(bob, ['orgs', 'join', invited.code]);
    expect(again.code).toBe(EXIT.apiRefused);
    expect(again.stderr).toMatch(/409 This invitation was used already/);

    const members = await assisted(alice, ['members', 'list']);
    expect(members.code, members.stderr).toBe(EXIT.ok);
    expect(members.stdout).toMatch(/^USER ID\s+EMAIL\s+ROLE\s+JOINED$/m);
    expect(members.stdout).toMatch(new RegExp(`^${aliceId}\\s+alice@example\\.com\\s+admin\\s+\\S+\\s+you$`, 'm'));
    expect(members.stdout).toMatch(new RegExp(`^${bobId}\\s+bob@example\\.com\\s+user\\s+\\S+$`, 'm'));

    // The last admin cannot stop being one, nor leave: the API's reason is shown.
    for (const args of [
      ['members', 'set-role', 'alice@example.com', '--role', 'user'],
      ['members', 'leave'],
    ]) {
      const refused = await assisted(alice, args);
      expect(refused.code, args.join(' ')).toBe(EXIT.apiRefused);
      expect(refused.stderr).toMatch(
        /409 The last admin of an organisation with other members cannot leave or stop being an admin: make another member an admin first/,
      );
    }
    // Read-only and user members change nothing.
    const notAdmin = await assisted(bob, ['members', 'set-role', aliceId, '--role', 'read-only']);
    expect(notAdmin.code).toBe(EXIT.apiRefused);
    expect(notAdmin.stderr).toMatch(/403 Only the organisation's admins may change members' roles/);

    const demoted = json<{ user_id: string; role: string }>(
      await assisted(alice, ['members', 'set-role', 'bob@example.com', '--role', 'read-only', '-o', 'json']),
    );
    expect(demoted).toEqual(expect.objectContaining({ user_id: bobId, role: 'read-only' }));
    const promoted = await assisted(alice, ['members', 'set-role', bobId, '--role', 'admin']);
    expect(promoted.code, promoted.stderr).toBe(EXIT.ok);
    expect(promoted.stdout).toMatch(new RegExp(`^${bobId}\\s+bob@example\\.com\\s+admin\\s`, 'm'));

    // A third person joins and leaves on their own; then Alice removes Bob.
    const carols = json<{ code: string }>(await assisted(bob, ['invitations', 'create', '--email', 'carol@example.com', '--role', 'read-only', '-o', 'json']));
    expect((await assisted(carol, ['orgs', 'join', carols.code])).code).toBe(EXIT.ok);
    const left = await assisted(carol, ['members', 'leave']);
    expect(left.code, left.stderr).toBe(EXIT.ok);
    expect(left.stderr).toMatch(new RegExp(`you left ${own.id}`));
    const gone = await assisted(carol, ['members', 'leave', '--org', own.id]);
    expect(gone.code).toBe(EXIT.apiRefused);
    expect(gone.stderr).toMatch(/404 .*\n {2}the signed-in person \(user id [0-9a-f]{32}\) is not a member of/);

    const removed = await assisted(alice, ['members', 'remove', 'bob@example.com']);
    expect(removed.code, removed.stderr).toBe(EXIT.ok);
    const remaining = json<{ user_id: string }[]>(await assisted(alice, ['members', 'list', '-o', 'json']));
    expect(remaining.map((m) => m.user_id)).toEqual([aliceId]);
    const unknown = await assisted(alice, ['members', 'remove', 'nobody@example.com']);
    expect(unknown.code).toBe(EXIT.apiRefused);
    expect(unknown.stderr).toMatch(/no member of .* has the user id or email "nobody@example.com"/);
  }, 60_000);
});
