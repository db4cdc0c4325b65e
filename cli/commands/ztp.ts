/** `assisted ztp apply|status`: ZTP manifests to REST calls, and their AgentClusterInstall conditions. */
import type { Command } from 'commander';
import { CliError, EXIT } from '../exit-codes.js';
import { note, print } from '../output.js';
import { applyPlan, planStatus } from '../ztp/apply.js';
import { formatManifestError, parseManifestFiles, readManifestDir } from '../ztp/manifests.js';
import { planFromManifests, type ZtpPlan } from '../ztp/translate.js';
import type { Cli } from './shared.js';

function loadPlan(dir: string): ZtpPlan {
  let files: ReturnType<typeof readManifestDir>;
  try {
    files = readManifestDir(dir);
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.usage);
  }
  if (files.length === 0) throw new CliError(`${dir} holds no *.yaml, *.yml or *.json manifests`, EXIT.invalidInput);
  const parsed = parseManifestFiles(files);
  const planned = planFromManifests(parsed.documents);
  const errors = [...parsed.errors, ...planned.errors];
  if (errors.length > 0) {
    throw new CliError(
      `${errors.length} problem(s) in the manifests of ${dir}; nothing was registered:\n${errors.map((e) => `  ${formatManifestError(e)}`).join('\n')}`,
      EXIT.invalidInput,
    );
  }
  return planned.plan;
}

/** `ztp apply|status` */
export function registerZtp(program: Command, cli: Cli): void {
  const ztp = program
    .command('ztp')
    .description('ZTP manifests (ClusterDeployment, AgentClusterInstall, ClusterImageSet, InfraEnv, NMStateConfig, pull-secret Secret) → REST');

  ztp
    .command('apply <dir>')
    .description('validate the manifests in DIR and register what they describe (idempotent)')
    .option('--dry-run', 'print the REST calls instead of making them')
    .action(async (dir: string, options: { dryRun?: boolean }) => {
      const plan = loadPlan(dir);
      const report = await applyPlan(cli.client(), plan, { dryRun: options.dryRun === true });
      for (const warning of report.warnings) note(`warning: ${warning}`);
      print(cli.format(), options.dryRun ? { calls: report.calls, resources: report.resources } : { resources: report.resources }, (r) => {
        const calls = options.dryRun
          ? report.calls
              .map((c) => `${c.method} ${c.path}${c.body !== undefined ? `\n${JSON.stringify(c.body, null, 2).replace(/^/gm, '    ')}` : ''}`)
              .join('\n')
          : '';
        const resources = r.resources
          .map((res) => `${res.kind} ${res.name}${res.id ? ` (${res.id})` : ''}: ${res.action}${res.fields?.length ? ` [${res.fields.join(', ')}]` : ''}`)
          .join('\n');
        return options.dryRun ? `${calls || '(no calls: everything is registered as described)'}\n\n${resources}` : resources;
      });
    });

  ztp
    .command('status <dir>')
    .description("the AgentClusterInstalls' conditions, from the clusters registered for DIR's manifests")
    .action(async (dir: string) => {
      const plan = loadPlan(dir);
      const statuses = await planStatus(cli.client(), plan);
      print(
        cli.format(),
        statuses.map((s) => ({
          apiVersion: 'extensions.hive.openshift.io/v1beta1',
          kind: 'AgentClusterInstall',
          metadata: { name: s.agentClusterInstall.name, ...(s.agentClusterInstall.namespace ? { namespace: s.agentClusterInstall.namespace } : {}) },
          status: {
            conditions: s.conditions,
            debugInfo: { state: s.state ?? '', stateInfo: s.stateInfo ?? '' },
            ...(s.clusterId ? { clusterID: s.clusterId } : {}),
          },
        })),
        (list) =>
          list
            .map(
              (aci) =>
                `${aci.metadata.name}${aci.status.debugInfo.state ? ` (${aci.status.debugInfo.state})` : ''}\n${aci.status.conditions.map((c) => `${c.type}\t${c.status}\t${c.reason}\t${c.message}`).join('\n')}`,
            )
            .join('\n\n'),
      );
    });
}
