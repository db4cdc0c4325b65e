/** What the command groups share: the global options, the client they make, and input helpers. */
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import YAML from 'yaml';
import { apiClient, type ApiClient, type Cluster, type Credentials, type Host, type Schemas } from '../api.js';
import { resolveCredentials } from '../config.js';
import { CliError, EXIT } from '../exit-codes.js';
import { outputFormat, type OutputFormat } from '../output.js';

export interface GlobalOptions {
  output?: string;
  url?: string;
  token?: string;
}

/** The program's global options, read when a command runs (after parsing). */
export interface Cli {
  globals(): GlobalOptions;
  format(): OutputFormat;
  /** The service URL and token the client uses (a command that shows links or reads its own token needs them). */
  credentials(): Credentials;
  client(): ApiClient;
}

export function cliOf(program: Command): Cli {
  const globals = (): GlobalOptions => program.opts<GlobalOptions>();
  return {
    globals,
    format: () => outputFormat(globals().output),
    credentials: () => resolveCredentials(globals()),
    client: () => apiClient(resolveCredentials(globals())),
  };
}

/** The client, with the id of what a command names, resolved through it (a name, say, to the id the API wants). */
export async function clientAndId<Named>(
  cli: Cli,
  named: Named,
  resolve: (api: ApiClient, named: Named) => Promise<string>,
): Promise<{ api: ApiClient; id: string }> {
  const api = cli.client();
  return { api, id: await resolve(api, named) };
}

export function readText(file: string, what: string): string {
  try {
    return file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${what} ${file}: ${(error as Error).message}`, EXIT.usage);
  }
}

export function readParams(file: string | undefined): Record<string, unknown> {
  if (!file) return {};
  const parsed: unknown = YAML.parse(readText(file, 'params file'));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new CliError(`${file} must hold a JSON or YAML object of API parameters`, EXIT.invalidInput);
  return parsed as Record<string, unknown>;
}

export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new CliError(`"${text}" is not a duration such as 90s, 30m or 2h`, EXIT.usage);
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * factor;
}

type ValidationsInfo = Record<string, { id: string; status: string; message: string }[]>;
export function failingValidations(validationsInfo: string | undefined | null): string[] {
  if (!validationsInfo) return [];
  try {
    const validations = Object.values(JSON.parse(validationsInfo) as ValidationsInfo).flat();
    const failing = validations.filter((v) => v.status === 'failure').map((v) => v.id);
    // A host held back only by checks still without a result names them, as waiting.
    return failing.length > 0 ? failing : validations.filter((v) => v.status === 'pending' || v.status === 'error').map((v) => `${v.id} (waiting)`);
  } catch {
    return [];
  }
}

/** The name a host goes by: the one asked for, else the one its inventory reports. */
export function hostname(host: Host): string {
  if (host.requested_hostname) return host.requested_hostname;
  try {
    return (JSON.parse(host.inventory ?? '{}') as { hostname?: string }).hostname ?? '';
  } catch {
    return '';
  }
}

/** One event as `events` prints it: a line for people (after `prefix`), a JSON line, or a YAML document. */
export function printEvent(format: OutputFormat, event: Schemas['event'], prefix = ''): void {
  if (format === 'json') process.stdout.write(`${JSON.stringify(event)}\n`);
  else if (format === 'yaml') process.stdout.write(`---\n${YAML.stringify(event)}`);
  else process.stdout.write(`${prefix}${event.event_time}  ${event.severity.padEnd(8)} ${event.message}\n`);
}

export const clusterRow = (c: Cluster) => [
  c.id,
  c.name ?? '',
  c.openshift_version ?? '',
  c.status,
  String(c.total_host_count ?? c.hosts?.length ?? 0),
  c.status_info,
];

/** A role in an organisation, as members, invitations and API tokens carry it. */
export type Role = Schemas['organization-member']['role'];
const ROLES: Role[] = ['admin', 'user', 'read-only'];
/** `--role`, refused by the CLI unless it is one of the roles. */
export const roleOption = (description: string) => new Option('--role <role>', description).choices(ROLES);
