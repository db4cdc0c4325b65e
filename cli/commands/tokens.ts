/** `assisted tokens create|list|revoke`: API tokens. */
import type { Command } from 'commander';
import { call } from '../api.js';
import { note, print } from '../output.js';
import { roleOption, type Cli, type Role } from './shared.js';

/** `tokens create|list|revoke` */
export function registerTokens(program: Command, cli: Cli): void {
  const tokens = program.command('tokens').description('API tokens');

  tokens
    .command('create')
    .description('create an API token; its secret is shown once')
    .requiredOption('--name <name>', 'who or what uses it')
    .addOption(roleOption('admin, user or read-only').default('user'))
    .option('--expires-at <time>', 'ISO 8601 expiry')
    .action(async (options: { name: string; role: Role; expiresAt?: string }) => {
      const created = await call('creating a token', () =>
        cli
          .client()
          .POST('/v2/api-tokens', { body: { name: options.name, role: options.role, ...(options.expiresAt ? { expires_at: options.expiresAt } : {}) } }),
      );
      print(cli.format(), created, (t) => `${t.token}\n\ntoken ${t.id} (${t.role}) created; the secret above is shown only now.`);
    });

  tokens
    .command('list')
    .description('list API tokens')
    .action(async () => {
      const list = await call('listing tokens', () => cli.client().GET('/v2/api-tokens'));
      print(cli.format(), list, (rows) => ({
        header: ['ID', 'NAME', 'ROLE', 'CREATED', 'STATE'],
        rows: rows.map((t) => [
          t.id,
          t.name,
          t.role,
          t.created_at,
          t.revoked_at ? `revoked ${t.revoked_at}` : t.expires_at ? `expires ${t.expires_at}` : 'active',
        ]),
      }));
    });

  tokens
    .command('revoke <token-id>')
    .description('revoke an API token')
    .action(async (tokenId: string) => {
      await call(`revoking token ${tokenId}`, () => cli.client().DELETE('/v2/api-tokens/{token_id}', { params: { path: { token_id: tokenId } } }));
      note(`token ${tokenId} revoked`);
    });
}
