/**
 * The installer on a real machine booted from the discovery image: coreos-installer writes the disk,
 * systemd runs the bootstrap control plane, `oc` with the bootstrap kubeconfig answers the waits, and
 * `shutdown` reboots. Every command goes through the agent's CommandRunner except the image write,
 * whose output must be streamed.
 */
import { access, mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { arch } from 'node:os';
import { dirname, join } from 'node:path';
import type { AgentLog } from '../contracts.js';
import type { CommandRunner } from '../exec.js';
import { waitFor } from './cluster-view.js';
import { describeFailure } from './dry-run.js';
import type { InstallerHost, WaitContext, WriteImageInput } from './runner.js';
import type { InstallFlow } from './stages.js';
import { runStreamed } from './stream-exec.js';

const INSTALL_DIR = '/opt/install-dir';
const BOOTSTRAP_KUBECONFIG = '/opt/openshift/auth/kubeconfig';
const BOOTKUBE_DONE = '/opt/openshift/.bootkube.done';
const SNO_MASTER_IGNITION = '/opt/openshift/master.ign';
const DOCKER_CONFIG = '/root/.docker/config.json';
const CONTROLLER_NAMESPACE = 'assisted-installer';
const CONTROLLER_READY_EVENT = 'AssistedControllerIsReady';

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

export class RealHost implements InstallerHost {
  readonly mode = 'real' as const;

  constructor(
    private readonly exec: CommandRunner,
    private readonly log: AgentLog,
    private readonly mcoImage?: string,
  ) {}

  private async run(command: string, args: readonly string[], timeoutMs = 120_000): Promise<string> {
    const result = await this.exec(command, args, { timeoutMs });
    if (result.missing) throw new Error(`${command} is not installed on this host`);
    if (result.exitCode !== 0) {
      const detail = (result.stderr || result.stdout).trim().split('\n').pop() ?? '';
      throw new Error(`${command} ${args.join(' ')} failed with exit code ${result.exitCode}${detail ? `: ${detail}` : ''}`);
    }
    return result.stdout;
  }

  async formatDisk(disk: string): Promise<void> {
    await this.run('dd', ['if=/dev/zero', `of=${disk}`, 'bs=512', 'count=1']);
  }

  async resolveBootDevice(device: string): Promise<string> {
    return realpath(device).catch(() => device);
  }

  /**
   * Leftover LVM or RAID makes coreos-installer fail; upstream tears those down with preinstall-utils.
   * We remove volume groups on the device, stop RAID membership and wipe signatures.
   */
  async cleanupInstallDevice(device: string): Promise<void> {
    const pvs = await this.exec('pvs', ['--noheadings', '-o', 'vg_name,pv_name'], { timeoutMs: 60_000 });
    if (!pvs.missing && pvs.exitCode === 0) {
      for (const line of pvs.stdout.split('\n')) {
        const [vg, pv] = line.trim().split(/\s+/);
        if (vg && pv?.startsWith(device)) {
          await this.run('vgremove', ['-y', '--force', vg]);
          await this.run('pvremove', ['-y', '--force', pv]);
        }
      }
    }
    const mdadm = await this.exec('mdadm', ['--zero-superblock', device], { timeoutMs: 60_000 });
    if (!mdadm.missing && mdadm.exitCode !== 0) this.log.debug('mdadm found no RAID superblock', { device });
    await this.run('wipefs', ['--all', '--force', device]);
  }

  async saveIgnition(fileName: string, content: Uint8Array): Promise<string> {
    await mkdir(INSTALL_DIR, { recursive: true, mode: 0o700 });
    const path = join(INSTALL_DIR, fileName);
    await writeFile(path, content, { mode: 0o600 });
    return path;
  }

  async writeImage(input: WriteImageInput): Promise<void> {
    const args = ['install', '--insecure', '-i', input.ignitionPath, ...input.installerArgs, input.device];
    this.log.info('running coreos-installer', { args });
    const result = await runStreamed('coreos-installer', args, { timeoutMs: 30 * 60_000, signal: input.signal, onOutput: input.onOutput });
    if (result.exitCode !== 0) throw new Error(describeFailure('coreos-installer', result));
  }

  /**
   * The bootstrap control plane as upstream starts it: the pull secret for podman, the bootstrap
   * ignition laid onto this live system by machine-config-daemon, then bootkube and its helpers.
   */
  async startBootstrap(bootstrapIgnitionPath: string, flow: InstallFlow): Promise<void> {
    await this.extractPullSecret(bootstrapIgnitionPath);
    if (!this.mcoImage) throw new Error('mco_image is required to start the bootstrap control plane');
    await this.run(
      'podman',
      [
        'run',
        '--net',
        'host',
        '--pid=host',
        '--volume',
        '/:/rootfs:rw',
        '--volume',
        '/usr/bin/rpm-ostree:/usr/bin/rpm-ostree',
        '--privileged',
        '--entrypoint',
        '/usr/bin/machine-config-daemon',
        this.mcoImage,
        'start',
        '--node-name',
        'localhost',
        '--root-mount',
        '/rootfs',
        '--once-from',
        bootstrapIgnitionPath,
        '--skip-reboot',
      ],
      20 * 60_000,
    );
    await this.run('systemctl', ['daemon-reload']);
    if (flow !== 'sno') await this.run('systemctl', ['restart', 'NetworkManager.service']);
    for (const service of ['bootkube.service', 'approve-csr.service', 'progress.service']) await this.run('systemctl', ['start', service]);
  }

  private async extractPullSecret(ignitionPath: string): Promise<void> {
    const ignition = JSON.parse(await readFile(ignitionPath, 'utf8')) as { storage?: { files?: { path?: string; contents?: { source?: string } }[] } };
    const file = ignition.storage?.files?.find((entry) => entry.path === DOCKER_CONFIG);
    const source = file?.contents?.source;
    if (!source) throw new Error(`bootstrap.ign has no ${DOCKER_CONFIG}`);
    const comma = source.indexOf(',');
    const header = source.slice(0, comma);
    const data = source.slice(comma + 1);
    const content = header.endsWith(';base64') ? Buffer.from(data, 'base64') : Buffer.from(decodeURIComponent(data));
    await mkdir(dirname(DOCKER_CONFIG), { recursive: true, mode: 0o700 });
    await writeFile(DOCKER_CONFIG, content, { mode: 0o600 });
  }

  waitForMasterNodes(context: WaitContext): Promise<void> {
    return waitFor(
      async () => {
        const nodes = JSON.parse(
          await this.run('oc', ['--kubeconfig', BOOTSTRAP_KUBECONFIG, 'get', 'nodes', '-l', 'node-role.kubernetes.io/master', '-o', 'json']),
        ) as {
          items?: { status?: { conditions?: { type?: string; status?: string }[] } }[];
        };
        const ready = (nodes.items ?? []).filter((node) => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
        return ready.length >= 2;
      },
      { ...context, what: '2 ready master nodes' },
    );
  }

  waitForBootkube(context: WaitContext): Promise<void> {
    return waitFor(() => exists(BOOTKUBE_DONE), { ...context, timeoutMs: Math.max(context.timeoutMs, 60 * 60_000), what: 'bootkube to complete' });
  }

  waitForEtcdBootstrap(context: WaitContext): Promise<void> {
    return waitFor(
      async () => {
        const result = await this.exec('systemctl', ['is-active', 'progress.service'], { timeoutMs: 30_000 });
        return result.stdout.trim() === 'inactive';
      },
      { ...context, what: 'etcd bootstrap (progress.service) to complete' },
    );
  }

  waitForController(context: WaitContext): Promise<void> {
    return waitFor(
      async () => {
        const events = JSON.parse(await this.run('oc', ['--kubeconfig', BOOTSTRAP_KUBECONFIG, 'get', 'events', '-n', CONTROLLER_NAMESPACE, '-o', 'json'])) as {
          items?: { metadata?: { name?: string } }[];
        };
        return (events.items ?? []).some((event) => event.metadata?.name === CONTROLLER_READY_EVENT);
      },
      { ...context, what: 'the assisted-installer controller ready event' },
    );
  }

  async singleNodeIgnition(hostIgnitionPath: string): Promise<string> {
    this.log.warn('SNO: using bootkube master.ign; host-specific overrides from the host ignition are not merged', { hostIgnitionPath });
    if (!(await exists(SNO_MASTER_IGNITION))) throw new Error(`${SNO_MASTER_IGNITION} was not produced by bootkube`);
    return SNO_MASTER_IGNITION;
  }

  async setBootOrder(device: string): Promise<void> {
    if (!(await exists('/sys/firmware/efi'))) {
      this.log.info('legacy BIOS boot: not setting the boot order');
      return;
    }
    const loader = arch() === 'arm64' ? '\\EFI\\redhat\\shimaa64.efi' : '\\EFI\\redhat\\shimx64.efi';
    await this.run('efibootmgr', ['-v', '-d', device, '-p', '2', '-c', '-L', 'Red Hat Enterprise Linux', '-l', loader]);
  }

  async reboot(when: 'now' | '+1'): Promise<void> {
    await this.run('shutdown', ['-r', when]);
  }
}
