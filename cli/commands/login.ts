/** `assisted login`: check and store the service URL and API token. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { apiClient, call } from '../api.js';
import { storeCredentials } from '../config.js';
import { CliError, EXIT } from '../exit-codes.js';
import { note } from '../output.js';
import type { Cli } from './shared.js';

/** `login` */
export function registerLogin(program: Command, cli: Cli): void {
  program
    .command('login')
    .description('check and store --url and the API token (in $XDG_CONFIG_HOME/assisted/config.yaml, mode 0600)')
    .option('--token-stdin', 'read the API token from standard input (--token shows it to other local users in the process list)')
    .action(async (options: { tokenStdin?: boolean }) => {
      const { url: givenUrl, token: givenToken } = cli.globals();
      const token = options.tokenStdin ? readFileSync(0, 'utf8').trim() : givenToken;
      if (!givenUrl) throw new CliError('login needs --url, e.g. --url http://127.0.0.1:8090', EXIT.usage);
      if (!token) throw new CliError('login needs --token-stdin or --token', EXIT.usage);
      const url = givenUrl.replace(/\/+$/, '');
      // Prove the pair works before storing it.
      await call(`checking the token against ${url}`, () => apiClient({ url, token }).GET('/v2/clusters'));
      const file = storeCredentials({ url, token });
      note(`logged in to ${url}; credentials stored in ${file}`);
    });
}
