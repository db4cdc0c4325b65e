/** `assisted webhooks create|list|delete|deliveries`: the organisation's webhook endpoints (admins). */
import type { Command } from 'commander';
import { call } from '../api.js';
import { CliError, EXIT } from '../exit-codes.js';
import { note, print } from '../output.js';
import type { Cli } from './shared.js';

const CLASSES = ['cluster-status', 'host-status', 'installed', 'failed', 'validation-failing'] as const;
type EventClass = (typeof CLASSES)[number];

export function registerWebhooks(program: Command, cli: Cli): void {
  const webhooks = program.command('webhooks').description('webhook endpoints for events (admins)');

  webhooks
    .command('create')
    .description('register an endpoint; its signing secret is shown once')
    .requiredOption('--url <url>', 'where deliveries are POSTed')
    .requiredOption('--events <classes>', `comma-separated: ${CLASSES.join(', ')}`)
    .action(async (options: { url: string; events: string }) => {
      const events = options.events
        .split(',')
        .map((event) => event.trim())
        .filter(Boolean);
      const unknown = events.filter((event) => !(CLASSES as readonly string[]).includes(event));
      if (events.length === 0 || unknown.length > 0)
        throw new CliError(`--events takes ${CLASSES.join(', ')}${unknown.length ? `; not ${unknown.join(', ')}` : ''}`, EXIT.usage);
      const created = await call('registering a webhook', () =>
        cli.client().POST('/v2/webhooks', { body: { url: options.url, events: events as EventClass[] } }),
      );
      print(cli.format(), created, (w) => `${w.secret}\n\nwebhook ${w.id} created for ${w.events.join(', ')}; the signing secret above is shown only now.`);
    });

  webhooks
    .command('list')
    .description('list endpoints')
    .action(async () => {
      const list = await call('listing webhooks', () => cli.client().GET('/v2/webhooks'));
      print(cli.format(), list, (rows) => ({
        header: ['ID', 'URL', 'EVENTS', 'CREATED'],
        rows: rows.map((w) => [w.id, w.url, w.events.join(','), w.created_at]),
      }));
    });

  webhooks
    .command('deliveries <webhook-id>')
    .description("an endpoint's deliveries, newest first: pending, delivered, or dead with the last error")
    .action(async (webhookId: string) => {
      const page = await call('listing deliveries', () =>
        cli.client().GET('/v2/webhooks/{webhook_id}/deliveries', { params: { path: { webhook_id: webhookId } } }),
      );
      print(cli.format(), page.deliveries, (rows) => ({
        header: ['ID', 'EVENT', 'RESOURCE', 'STATE', 'ATTEMPTS', 'LAST ERROR'],
        rows: rows.map((d) => [d.id, d.event, d.resource, d.state, String(d.attempts), d.last_error ?? '']),
      }));
    });

  webhooks
    .command('delete <webhook-id>')
    .description('remove an endpoint')
    .action(async (webhookId: string) => {
      await call(`deleting webhook ${webhookId}`, () => cli.client().DELETE('/v2/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } } }));
      note(`webhook ${webhookId} deleted`);
    });
}
