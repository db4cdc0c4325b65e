/** `assisted audit`: the organisation's audit log (admins). */
import type { Command } from 'commander';
import { call } from '../api.js';
import { CliError, EXIT } from '../exit-codes.js';
import { print } from '../output.js';
import type { Cli } from './shared.js';

/** Pages read at most with --all: 100 pages of 1,000 records. */
const MAX_PAGES = 100;

export function registerAudit(program: Command, cli: Cli): void {
  program
    .command('audit')
    .description("the organisation's audit log, newest first (admins): who changed what, when, from where, and how it ended")
    .option('--resource <resource>', 'only this resource and what is under it (clusters/<id>, infra-envs/<id>, hosts/<id>, api-tokens/<id>)')
    .option('--actor <actor>', 'only this token id, user id or email')
    .option('--since <time>', 'from this ISO 8601 time')
    .option('--until <time>', 'up to this ISO 8601 time')
    .option('--limit <n>', 'records per page (1-1000)', '100')
    .option('--all', 'every page, not just the first')
    .action(async (options: { resource?: string; actor?: string; since?: string; until?: string; limit: string; all?: boolean }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CliError('--limit must be a whole number from 1 to 1000', EXIT.usage);
      const api = cli.client();
      const query = {
        limit,
        ...(options.resource ? { resource: options.resource } : {}),
        ...(options.actor ? { actor: options.actor } : {}),
        ...(options.since ? { since: options.since } : {}),
        ...(options.until ? { until: options.until } : {}),
      };
      const records = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await call('reading the audit log', () =>
          api.GET('/v2/audit-events', { params: { query: { ...query, ...(cursor ? { cursor } : {}) } } }),
        );
        records.push(...answer.audit_events);
        cursor = answer.next_cursor;
        if (!cursor || !options.all) break;
      }
      print(cli.format(), records, (rows) => ({
        header: ['TIME', 'ACTOR', 'ROLE', 'OPERATION', 'RESOURCE', 'RESULT', 'FROM'],
        rows: rows.map((r) => [
          r.at,
          r.actor.email ?? r.actor.id,
          r.actor.role,
          r.operation_id,
          r.resource,
          r.outcome.status ? `${r.outcome.result} ${r.outcome.status}` : r.outcome.result,
          r.source.ip ?? '',
        ]),
      }));
    });
}
