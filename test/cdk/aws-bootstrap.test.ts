/**
 * The first admin of a deployed stack (bin/aws-bootstrap.ts), against DynamoDB Local standing in
 * for the stack's table: the command run as a deployer runs it, and the token it prints
 * authenticates as an admin of the organisation it made.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOTSTRAP_ORG_ID, bootstrapFirstAdmin } from '../../bin/aws-bootstrap.js';
import { PROJECT_ROOT } from '../../lib/catalogue.js';
import { systemClock } from '../../lambdas/ports/clock.js';
import { authenticateUser, revokeApiToken } from '../../lambdas/usecases/api-tokens.js';
import { dynamodbEndpoint } from '../support/dynamodb-local.js';
import { freshStore } from '../support/dynamo.js';

const run = promisify(execFile);

describe('bootstrapping the first admin of a deployed stack', { timeout: 120_000 }, () => {
  let table: Awaited<ReturnType<typeof freshStore>>;
  const dir = mkdtempSync(join(tmpdir(), 'assisted-bootstrap-'));
  beforeAll(async () => {
    table = await freshStore();
  });
  afterAll(async () => {
    await table?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The command as docs/deploy.md gives it, its AWS SDK pointed at DynamoDB Local. */
  const bootstrap = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['bin/aws-bootstrap.ts', '--table', table.tableName, ...args], {
        cwd: PROJECT_ROOT,
        env: {
          ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('AWS_'))),
          AWS_ENDPOINT_URL_DYNAMODB: await dynamodbEndpoint(),
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
        },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  it('makes the organisation and an admin token that the API accepts, once', async () => {
    const first = await bootstrap();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`created organisation ${BOOTSTRAP_ORG_ID}`);
    const token = first.stdout.trim();
    const principal = await authenticateUser({ store: table.store, clock: systemClock }, `Bearer ${token}`);
    expect(principal).toMatchObject({ kind: 'user', orgId: BOOTSTRAP_ORG_ID, role: 'admin' });
    expect((await table.store.organisations.get({ orgId: BOOTSTRAP_ORG_ID }))?.name).toBe('Default organisation');

    // A second run leaves no admin credentials nobody asked for.
    const second = await bootstrap();
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(/already has an active admin token: \w+ "admin \(bootstrap\)"/);

    // Asked for, one more, written to a file only its owner reads.
    const out = join(dir, 'admin-token');
    const another = await bootstrap('--another', '--out', out, '--token-name', 'ci');
    expect(another.code, another.stderr).toBe(0);
    expect(another.stdout).toBe('');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const ci = await authenticateUser({ store: table.store, clock: systemClock }, `Bearer ${readFileSync(out, 'utf8').trim()}`);
    expect(ci).toMatchObject({ orgId: BOOTSTRAP_ORG_ID, role: 'admin' });
    expect(ci).not.toMatchObject({ tokenId: (principal as { tokenId?: string }).tokenId });
  });

  it('makes a new admin token once every earlier one is revoked, and refuses an organisation id no token can carry', async () => {
    const deps = { store: table.store, clock: systemClock };
    const request = { orgId: 'ops', orgName: 'Operations', tokenName: 'admin (bootstrap)', another: false };
    const first = await bootstrapFirstAdmin(deps, request);
    expect(first).toMatchObject({ kind: 'created', organisationCreated: true });
    if (first.kind !== 'created') return;
    await revokeApiToken(deps, 'ops', first.record.tokenId);
    expect(await bootstrapFirstAdmin(deps, request)).toMatchObject({ kind: 'created', organisationCreated: false });
    await expect(bootstrapFirstAdmin(deps, { ...request, orgId: 'my.org' })).rejects.toThrow(/letters, digits/);
    expect((await bootstrap('--org', 'my.org')).code).toBe(1);
    expect((await bootstrap()).code).toBe(1);
    expect((await run(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['bin/aws-bootstrap.ts', '--help'], { cwd: PROJECT_ROOT })).stdout).toMatch(/--table/);
  });
});
