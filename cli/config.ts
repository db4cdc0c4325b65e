/**
 * Where `assisted login` keeps the API URL and token: $XDG_CONFIG_HOME/assisted/config.yaml, else
 * ~/.config/assisted/config.yaml. The token is a credential, so the directory is 0700 and the file
 * 0600, and both are re-tightened on every write in case something loosened them.
 * ASSISTED_URL and ASSISTED_TOKEN override what is stored (for CI, where nothing is stored).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import type { Credentials } from './api.js';
import { CliError, EXIT } from './exit-codes.js';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(homedir(), '.config');
  return path.join(base, 'assisted');
}

export const configFile = (env: NodeJS.ProcessEnv = process.env) => path.join(configDir(env), 'config.yaml');

export function readStoredCredentials(env: NodeJS.ProcessEnv = process.env): Partial<Credentials> {
  let text: string;
  try {
    text = readFileSync(configFile(env), 'utf8');
  } catch {
    return {};
  }
  const parsed = YAML.parse(text) as { url?: unknown; token?: unknown } | null;
  return {
    ...(typeof parsed?.url === 'string' ? { url: parsed.url } : {}),
    ...(typeof parsed?.token === 'string' ? { token: parsed.token } : {}),
  };
}

export function storeCredentials(credentials: Credentials, env: NodeJS.ProcessEnv = process.env): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = configFile(env);
  const temporary = `${file}.${process.pid}.tmp`;
  // Written 0600 from the first byte, then renamed: the token is never readable by others, even briefly.
  writeFileSync(temporary, YAML.stringify({ url: credentials.url, token: credentials.token }), { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
  return file;
}

/** The service `npm start` runs on this machine, where a token is given without a URL. */
export const localServiceUrl = (env: NodeJS.ProcessEnv = process.env): string => `http://127.0.0.1:${env.ASSISTED_PORT ?? 8090}`;

/** Flags beat the environment, which beats the stored login; a token alone is for the local service. */
export function resolveCredentials(flags: { url?: string; token?: string }, env: NodeJS.ProcessEnv = process.env): Credentials {
  const stored = readStoredCredentials(env);
  const token = flags.token ?? env.ASSISTED_TOKEN ?? stored.token;
  const url = flags.url ?? env.ASSISTED_URL ?? stored.url ?? (token ? localServiceUrl(env) : undefined);
  if (!url || !token) {
    throw new CliError(
      `not logged in: run \`assisted login --url URL --token-stdin\` (or set ASSISTED_URL and ASSISTED_TOKEN); looked in ${configFile(env)}`,
      EXIT.usage,
    );
  }
  return { url, token };
}
