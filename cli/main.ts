/**
 * `assisted`: the Assisted Installer from the command line, through the REST API only (the typed
 * client in cli/api.ts). Bundled to dist/assisted.mjs by `npm run build:cli`. Output: tables for
 * people, `-o json|yaml` for scripts; exit codes in cli/exit-codes.ts and docs/cli.md. The commands are in cli/commands/.
 */
import { Command, CommanderError, Option } from 'commander';
import { registerAudit } from './commands/audit.js';
import { registerWebhooks } from './commands/webhooks.js';
import { registerClusters, registerKubeconfig, registerWait } from './commands/clusters.js';
import { registerEvents, registerHosts } from './commands/hosts.js';
import { registerImage, registerInfraEnvs } from './commands/infra-envs.js';
import { registerLogin } from './commands/login.js';
import { registerInvitations, registerMembers, registerOrgs } from './commands/organisations.js';
import { cliOf } from './commands/shared.js';
import { registerTokens } from './commands/tokens.js';
import { registerZtp } from './commands/ztp.js';
import { CliError, EXIT } from './exit-codes.js';

const program = new Command('assisted')
  .description('Install OpenShift with the Assisted Installer service, from the command line.')
  .addOption(new Option('-o, --output <format>', 'table, json or yaml').default('table'))
  .option('--url <url>', 'service URL (default: the stored login, or $ASSISTED_URL)')
  .option('--token <token>', 'API token (default: the stored login, or $ASSISTED_TOKEN)')
  .showHelpAfterError()
  .exitOverride();

// The command groups (cli/commands/), in the order help lists them.
const cli = cliOf(program);
for (const register of [
  registerLogin,
  registerClusters,
  registerInfraEnvs,
  registerImage,
  registerHosts,
  registerEvents,
  registerWait,
  registerKubeconfig,
  registerTokens,
  registerOrgs,
  registerMembers,
  registerInvitations,
  registerAudit,
  registerWebhooks,
  registerZtp,
]) {
  register(program, cli);
}

export async function main(argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are not failures; every other commander error is a usage error it has already printed.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof CliError) {
      process.stderr.write(`assisted: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`assisted: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.transient;
  }
}

// A reader that stops early (`assisted events … | head -1`) closes the pipe: the CLI ends quietly
// and successfully, as Unix tools do, instead of dying on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
    throw error;
  });
}

process.exitCode = await main(process.argv);
