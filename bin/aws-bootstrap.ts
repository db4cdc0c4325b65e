/**
 * `npx tsx bin/aws-bootstrap.ts --table TABLE`: the first organisation and admin API token of a
 * deployed stack, as `npm start` makes them locally (bin/local/runtime.ts), written straight into
 * the stack's table with the deployer's AWS credentials. Automation needs a token before anyone has
 * signed in, and `npm run token` itself needs one to talk to the API. Run once per stage; it
 * refuses to make a second admin token unless asked (docs/deploy.md, "The first admin").
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoStore } from '../lambdas/adapters/dynamodb/store.js';
import { tokenRejection } from '../lambdas/domain/auth/api-token.js';
import { systemClock, type Clock } from '../lambdas/ports/clock.js';
import type { Store } from '../lambdas/ports/store.js';
import { createApiToken, listApiTokens, type ApiTokenView } from '../lambdas/usecases/api-tokens.js';
import { ensureOrganisation } from '../lambdas/usecases/organisations.js';

/** The organisation id `npm start` gives its first organisation; API tokens carry it, so it is a token part. */
export const BOOTSTRAP_ORG_ID = 'default';
const ORG_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface BootstrapRequest {
  orgId: string;
  orgName: string;
  tokenName: string;
  /** Make an admin token even when the organisation has an active one. */
  another: boolean;
}

export type BootstrapResult =
  | { kind: 'created'; token: string; record: ApiTokenView; organisationCreated: boolean }
  | { kind: 'refused'; activeAdminTokens: ApiTokenView[] };

/**
 * The organisation unless it exists, and an admin API token in it, unless it already has an active
 * one: a second run must not leave admin credentials nobody asked for.
 */
export async function bootstrapFirstAdmin(deps: { store: Store; clock: Clock }, request: BootstrapRequest): Promise<BootstrapResult> {
  if (!ORG_ID.test(request.orgId))
    throw new Error(`organisation id "${request.orgId}": letters, digits, _ and - only (it is a part of every API token), at most 64`);
  const { created } = await ensureOrganisation(deps, request.orgId, request.orgName);
  const now = deps.clock.now();
  const activeAdminTokens = (await listApiTokens(deps, request.orgId)).filter((token) => token.role === 'admin' && !tokenRejection(token, now));
  if (activeAdminTokens.length > 0 && !request.another) return { kind: 'refused', activeAdminTokens };
  const { token, record } = await createApiToken(deps, { orgId: request.orgId, name: request.tokenName, role: 'admin' });
  return { kind: 'created', token, record, organisationCreated: created };
}

const usage = `usage: npx tsx bin/aws-bootstrap.ts --table TABLE [--org ${BOOTSTRAP_ORG_ID}] [--org-name NAME] [--token-name NAME] [--out FILE] [--another]
  --table       the stack's table (its TableName output)
  --org         organisation id (default ${BOOTSTRAP_ORG_ID}); --org-name its name when it is created
  --token-name  who or what uses the token (default "admin (bootstrap)")
  --out FILE    write the token to FILE (mode 0600) instead of printing it
  --another     make an admin token even if the organisation has an active one
AWS region and credentials are the SDK's usual ones (AWS_REGION, AWS_PROFILE, ...); they must be
allowed to read and write the table.`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      table: { type: 'string' },
      org: { type: 'string', default: BOOTSTRAP_ORG_ID },
      'org-name': { type: 'string', default: 'Default organisation' },
      'token-name': { type: 'string', default: 'admin (bootstrap)' },
      out: { type: 'string' },
      another: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  if (!values.table) {
    console.error(`--table is required\n${usage}`);
    return 2;
  }
  const client = new DynamoDBClient({});
  try {
    const result = await bootstrapFirstAdmin(
      { store: createDynamoStore({ tableName: values.table, client }), clock: systemClock },
      { orgId: values.org, orgName: values['org-name'], tokenName: values['token-name'], another: values.another },
    );
    if (result.kind === 'refused') {
      const names = result.activeAdminTokens.map((token) => `${token.tokenId} "${token.name}" (created ${token.createdAt})`).join(', ');
      console.error(
        `organisation ${values.org} already has an active admin token: ${names}. Use it, pass --another for one more, or revoke one with \`npm run token -- revoke ID\`.`,
      );
      return 1;
    }
    if (result.organisationCreated) console.error(`created organisation ${values.org}`);
    if (values.out) {
      writeFileSync(values.out, `${result.token}\n`, { mode: 0o600 });
      chmodSync(values.out, 0o600);
      console.error(`admin token ${result.record.tokenId} written to ${values.out}`);
    } else {
      console.log(result.token);
      console.error(`admin token ${result.record.tokenId} created in organisation ${values.org}; the secret above is shown only now.`);
    }
    return 0;
  } finally {
    client.destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`bootstrap failed: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}
