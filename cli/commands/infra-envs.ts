/** `assisted infra-envs …` and `image download`: discovery image configurations and their ISOs. */
import path from 'node:path';
import type { Command } from 'commander';
import { call, resolveClusterId, resolveInfraEnvId, type InfraEnvCreateParams } from '../api.js';
import { download, progressBar } from '../download.js';
import { note, print } from '../output.js';
import { clientAndId, readParams, readText, type Cli } from './shared.js';

/** `infra-envs create|show` */
export function registerInfraEnvs(program: Command, cli: Cli): void {
  const infraEnvs = program.command('infra-envs').description('create and show infra-envs (discovery image configurations)');

  infraEnvs
    .command('create')
    .description('register an infra-env')
    .requiredOption('--name <name>', 'infra-env name')
    .option('--cluster <cluster>', 'cluster (id or name) the hosts join')
    .requiredOption('--pull-secret-file <file>', 'pull secret JSON file ("-" for stdin)')
    .option('--ssh-key-file <file>', 'SSH public key for the discovery image')
    .option('--image-type <type>', 'full-iso or minimal-iso')
    .option('--cpu-architecture <arch>', 'CPU architecture')
    .option('--params <file>', 'JSON/YAML file of further infra-env-create-params (merged; flags win)')
    .action(async (options: Record<string, string | undefined>) => {
      const api = cli.client();
      const clusterId = options.cluster ? await resolveClusterId(api, options.cluster) : undefined;
      const body = {
        ...readParams(options.params),
        name: options.name!,
        pull_secret: readText(options.pullSecretFile!, 'pull secret file').trim(),
        ...(clusterId ? { cluster_id: clusterId } : {}),
        ...(options.sshKeyFile ? { ssh_authorized_key: readText(options.sshKeyFile, 'SSH key file').trim() } : {}),
        ...(options.imageType ? { image_type: options.imageType } : {}),
        ...(options.cpuArchitecture ? { cpu_architecture: options.cpuArchitecture } : {}),
      } as InfraEnvCreateParams;
      const infraEnv = await call(`registering infra-env ${body.name}`, () => api.POST('/v2/infra-envs', { body }));
      print(cli.format(), infraEnv, (i) => ({ header: ['ID', 'NAME', 'CLUSTER', 'TYPE'], rows: [[i.id, i.name, i.cluster_id ?? '', i.type]] }));
    });

  infraEnvs
    .command('show <infra-env>')
    .description('show an infra-env (id or name)')
    .action(async (idOrName: string) => {
      const { api, id } = await clientAndId(cli, idOrName, resolveInfraEnvId);
      const infraEnv = await call(`reading infra-env ${idOrName}`, () => api.GET('/v2/infra-envs/{infra_env_id}', { params: { path: { infra_env_id: id } } }));
      print(cli.format(), infraEnv, (i) =>
        [
          `id:        ${i.id}`,
          `name:      ${i.name}`,
          `cluster:   ${i.cluster_id ?? '(none: late binding)'}`,
          `type:      ${i.type}`,
          `version:   ${i.openshift_version ?? ''} (${i.cpu_architecture ?? ''})`,
          `image url: ${i.download_url ?? ''}`,
        ].join('\n'),
      );
    });
}

/** `image download` */
export function registerImage(program: Command, cli: Cli): void {
  program
    .command('image')
    .description('discovery images')
    .command('download <infra-env>')
    .description('download the discovery ISO of an infra-env (resumable; checksum checked when the server states one)')
    .option('-f, --file <file>', 'where to write it (default: discovery-<infra-env id>.iso)')
    .action(async (idOrName: string, options: { file?: string }) => {
      const { api, id } = await clientAndId(cli, idOrName, resolveInfraEnvId);
      const presigned = await call(`getting the image URL of infra-env ${idOrName}`, () =>
        api.GET('/v2/infra-envs/{infra_env_id}/downloads/image-url', { params: { path: { infra_env_id: id } } }),
      );
      const file = options.file ?? `discovery-${id}.iso`;
      const bar = progressBar(path.basename(file));
      const result = await download(presigned.url, file, { progress: bar.progress });
      bar.done();
      if (result.resumedFrom > 0) note(`resumed at byte ${result.resumedFrom}`);
      note(
        result.checksum ? `${result.checksum.algorithm} verified: ${result.checksum.expected}` : 'the server states no checksum for this image: not verified',
      );
      // The service names images made from a SYNTHETIC base ISO so (the embedded runtime builds one when no RHCOS image was imported).
      const synthetic = /SYNTHETIC/.test(result.serverFileName ?? '');
      if (synthetic) {
        // The image URL names the release and type the base ISO is for; import-iso needs the version.
        const image = new URL(presigned.url ?? '', 'http://image').searchParams;
        const release = `--version ${image.get('version') ?? '<version>'} --arch ${image.get('arch') ?? 'x86_64'} --type ${image.get('type') ?? 'full-iso'}`;
        note(
          `SYNTHETIC image: made from a stand-in base ISO, not RHCOS; it does not boot (npm run import-iso -- ${release} --file <RHCOS live ISO> imports a real one, README "Discovery ISOs")`,
        );
      }
      print(
        cli.format(),
        { file: result.file, bytes: result.bytes, resumed_from: result.resumedFrom, checksum: result.checksum ?? null, synthetic },
        (r) => `${r.file} (${r.bytes} bytes${r.synthetic ? ', SYNTHETIC: does not boot' : ''})`,
      );
    });
}
