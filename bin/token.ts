/**
 * `npm run token -- create|list|revoke`: manages API tokens through the running service's API.
 * Authenticates with ASSISTED_TOKEN, or the admin token the embedded runtime saved.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const usage = `usage:
  npm run token -- create --name NAME [--role admin|user|read-only] [--expires-at ISO-8601]
  npm run token -- list
  npm run token -- revoke TOKEN_ID
settings: ASSISTED_URL (default http://127.0.0.1:$ASSISTED_PORT or :8090), ASSISTED_TOKEN
          (default: the admin token in $ASSISTED_DATA_DIR/admin-token, ./.assisted by default)`;

function fail(message: string, code = 2): never {
  console.error(message);
  process.exit(code);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    role: { type: 'string', default: 'user' },
    'expires-at': { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
const [command, ...rest] = positionals;
if (values.help || !command) fail(usage, values.help ? 0 : 2);

const baseUrl = process.env.ASSISTED_URL ?? `http://127.0.0.1:${process.env.ASSISTED_PORT ?? 8090}`;
function credentials(): string {
  if (process.env.ASSISTED_TOKEN) return process.env.ASSISTED_TOKEN;
  const file = path.join(process.env.ASSISTED_DATA_DIR ?? '.assisted', 'admin-token');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return fail(`no token: set ASSISTED_TOKEN or start the service once so that ${file} exists`);
  }
}

async function call(method: string, route: string, body?: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/api/assisted-install/v2${route}`, {
      method,
      headers: { Authorization: `Bearer ${credentials()}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (error) {
    return fail(`cannot reach ${baseUrl}: ${(error as Error).message} (is the service running?)`, 1);
  }
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  if (!response.ok) fail(`${response.status}: ${String(parsed?.reason ?? parsed?.message ?? text)}`, 1);
  return parsed;
}

interface TokenRow {
  id: string;
  name: string;
  role: string;
  created_at: string;
  expires_at?: string;
  revoked_at?: string;
  token?: string;
}

switch (command) {
  case 'create': {
    if (!values.name) fail('create needs --name (who or what uses the token)');
    const created = (await call('POST', '/api-tokens', {
      name: values.name,
      role: values.role,
      ...(values['expires-at'] ? { expires_at: values['expires-at'] } : {}),
    })) as TokenRow;
    if (values.json) console.log(JSON.stringify(created, null, 2));
    else console.log(`${created.token}\n\ntoken ${created.id} (${created.role}) created; the secret above is shown only now.`);
    break;
  }
  case 'list': {
    const tokens = (await call('GET', '/api-tokens')) as TokenRow[];
    if (values.json) {
      console.log(JSON.stringify(tokens, null, 2));
      break;
    }
    const rows = tokens.map((t) => [
      t.id,
      t.name,
      t.role,
      t.created_at,
      t.revoked_at ? `revoked ${t.revoked_at}` : t.expires_at ? `expires ${t.expires_at}` : 'active',
    ]);
    const header = ['ID', 'NAME', 'ROLE', 'CREATED', 'STATE'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const row of [header, ...rows])
      console.log(
        row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      );
    break;
  }
  case 'revoke': {
    const [id] = rest;
    if (!id) fail('revoke needs the token id (see `npm run token -- list`)');
    await call('DELETE', `/api-tokens/${id}`);
    console.log(`token ${id} revoked`);
    break;
  }
  default:
    fail(`unknown command "${command}"\n${usage}`);
}
