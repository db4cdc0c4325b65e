/** `npm run token -- create|list|revoke` as a process against a running service. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRuntime } from '../support/runtime.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

describe('token CLI', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  const cli = (args: string[], token?: string) =>
    run(path.join(root, 'node_modules/.bin/tsx'), ['bin/token.ts', ...args], {
      cwd: root,
      env: { ...process.env, NODE_NO_WARNINGS: '1', ASSISTED_URL: env.runtime.url, ASSISTED_TOKEN: token ?? env.adminToken },
      timeout: 30_000,
    });

  beforeAll(async () => {
    env = await testRuntime();
  }, 180_000);
  afterAll(async () => env?.close());

  it('creates a token shown once, lists it without its secret, and revokes it', async () => {
    const created = JSON.parse((await cli(['create', '--name', 'ci-bot', '--role', 'read-only', '--json'])).stdout) as {
      id: string;
      token: string;
      role: string;
    };
    expect(created.role).toBe('read-only');
    const clusters = await fetch(`${env.runtime.url}/api/assisted-install/v2/clusters`, { headers: { Authorization: `Bearer ${created.token}` } });
    expect(clusters.status).toBe(200);

    const listing = (await cli(['list'])).stdout;
    expect(listing).toMatch(/ID\s+NAME\s+ROLE\s+CREATED\s+STATE/);
    expect(listing).toContain('ci-bot');
    expect(listing).not.toContain(created.token.split('.')[3]);

    expect((await cli(['revoke', created.id])).stdout).toContain(`token ${created.id} revoked`);
    expect((await cli(['list'])).stdout).toMatch(new RegExp(`${created.id}.*revoked`));
    const refused = await fetch(`${env.runtime.url}/api/assisted-install/v2/clusters`, { headers: { Authorization: `Bearer ${created.token}` } });
    expect(refused.status).toBe(401);
  });

  it("exits non-zero with the server's reason when refused, and with usage on bad arguments", async () => {
    await expect(cli(['list'], 'ac1.default.nope.nope')).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/401/) });
    await expect(cli(['create'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--name/) });
    await expect(cli(['frobnicate'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown command/) });
  });
});
