/**
 * DRY RUN installer host: the real installer code path on a machine whose disks must not be touched.
 * The image goes to a regular file, coreos-installer is replaced by `dry-installer` (an executable of
 * ours that takes the same arguments, copies the ignition next to the target and writes a byte pattern
 * into it while printing coreos-installer's progress lines) and the reboot becomes a marker file.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentLog } from '../contracts.js';
import type { InstallerHost, WaitContext, WriteImageInput } from './runner.js';
import { waitForControllerViaService, waitForMastersViaService } from './service-waits.js';
import { runStreamed } from './stream-exec.js';

export interface DryRunConfig {
  /** The regular file that stands in for the boot device (whatever boot_device the service sent). */
  readonly bootDevicePath: string;
  /** Written instead of rebooting (upstream's --fake-reboot-marker-path). */
  readonly rebootMarkerPath: string;
  /** Where ignitions and the dry-installer executable go; default a directory under the OS temp dir. */
  readonly workDir?: string;
  /** Size of the image the dry-installer writes; default 8 MiB. */
  readonly imageBytes?: number;
  /** Run this instead of our dry-installer (tests use it to make writing fail). */
  readonly coreosInstallerCommand?: string;
}

const DEFAULT_IMAGE_BYTES = 8 * 1024 * 1024;

/**
 * Source of the dry-installer executable. Plain CommonJS so it runs under the same `node` as the agent,
 * bundled or not, with nothing to resolve. The byte at offset i of the image is i % 251, so a reader
 * can check every byte landed where it should.
 */
export const DRY_INSTALLER_SOURCE = String.raw`'use strict';
// dry-installer: stands in for "coreos-installer install" in the agent's DRY RUN mode.
const fs = require('node:fs');
const argv = process.argv.slice(2);
if (argv[0] !== 'install') {
  process.stderr.write('dry-installer: only "install" is supported\n');
  process.exit(2);
}
const valueFlags = new Set(['-i', '--ignition-file', '--append-karg', '--delete-karg', '--network-dir', '--save-partlabel', '--save-partindex', '--image-url', '-u', '--image-file', '-f']);
let ignition;
const positional = [];
for (let i = 1; i < argv.length; i++) {
  const arg = argv[i];
  if (arg === '-i' || arg === '--ignition-file') { ignition = argv[++i]; continue; }
  if (valueFlags.has(arg)) { i++; continue; }
  if (arg.startsWith('-')) continue;
  positional.push(arg);
}
const device = positional[positional.length - 1];
if (!ignition || !device || positional.length !== 1) {
  process.stderr.write('dry-installer: usage: install [options] -i IGNITION DEVICE\n');
  process.exit(2);
}
const total = Number(process.env.DRY_INSTALLER_IMAGE_BYTES || 8388608);
const human = (bytes) => {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
  return value.toFixed(1) + ' ' + units[unit];
};
try {
  JSON.parse(fs.readFileSync(ignition, 'utf8'));
} catch (error) {
  process.stderr.write('Error: parsing Ignition config: ' + error.message + '\n');
  process.exit(1);
}
process.stdout.write('Installing Red Hat Enterprise Linux CoreOS (DRY RUN) to ' + device + '\n');
const fd = fs.openSync(device, 'w');
const chunkSize = Math.max(4096, Math.ceil(total / 100));
const chunk = Buffer.alloc(chunkSize);
let written = 0;
let lastPercent = -1;
while (written < total) {
  const size = Math.min(chunkSize, total - written);
  for (let j = 0; j < size; j++) chunk[j] = (written + j) % 251;
  fs.writeSync(fd, chunk, 0, size, written);
  written += size;
  const percent = Math.floor((written * 100) / total);
  if (percent !== lastPercent) {
    process.stderr.write('Read disk ' + human(written) + '/' + human(total) + ' (' + percent + '%)\n');
    lastPercent = percent;
  }
}
fs.fsyncSync(fd);
fs.closeSync(fd);
fs.copyFileSync(ignition, device + '.ign');
process.stdout.write('Writing Ignition config\nInstall complete.\n');
`;

export class DryRunHost implements InstallerHost {
  readonly mode = 'dry-run' as const;
  private readonly workDir: string;
  private dryInstallerPath?: string;

  constructor(
    private readonly config: DryRunConfig,
    private readonly log: AgentLog,
  ) {
    this.workDir = config.workDir ?? join(tmpdir(), `assisted-dry-run-${process.pid}`);
  }

  async formatDisk(disk: string): Promise<void> {
    this.log.warn(`DRY RUN: not formatting ${disk}`);
  }

  async resolveBootDevice(device: string): Promise<string> {
    this.log.warn(`DRY RUN: writing the image for ${device} to the file ${this.config.bootDevicePath}`);
    return this.config.bootDevicePath;
  }

  async cleanupInstallDevice(device: string): Promise<void> {
    this.log.warn(`DRY RUN: not cleaning ${device}`);
  }

  async saveIgnition(fileName: string, content: Uint8Array): Promise<string> {
    await mkdir(this.workDir, { recursive: true, mode: 0o700 });
    const path = join(this.workDir, fileName);
    await writeFile(path, content, { mode: 0o600 });
    return path;
  }

  async writeImage(input: WriteImageInput): Promise<void> {
    const command = this.config.coreosInstallerCommand ?? (await this.installDryInstaller());
    const args = ['install', '--insecure', '-i', input.ignitionPath, ...input.installerArgs, input.device];
    this.log.warn(`DRY RUN: running ${command} instead of coreos-installer`, { args });
    const result = await runStreamed(command, args, {
      timeoutMs: 30 * 60_000,
      signal: input.signal,
      env: { ...process.env, DRY_INSTALLER_IMAGE_BYTES: String(this.config.imageBytes ?? DEFAULT_IMAGE_BYTES) },
      onOutput: input.onOutput,
    });
    if (result.exitCode !== 0) throw new Error(describeFailure('dry-installer', result));
  }

  async startBootstrap(bootstrapIgnitionPath: string): Promise<void> {
    this.log.warn(`DRY RUN: not starting bootstrap services from ${bootstrapIgnitionPath}`);
  }

  waitForMasterNodes(context: WaitContext): Promise<void> {
    return waitForMastersViaService(context);
  }

  async waitForBootkube(): Promise<void> {
    this.log.warn('DRY RUN: bootkube is not running; not waiting for it');
  }

  async waitForEtcdBootstrap(): Promise<void> {
    this.log.warn('DRY RUN: etcd bootstrap is not running; not waiting for it');
  }

  waitForController(context: WaitContext): Promise<void> {
    return waitForControllerViaService(context);
  }

  async singleNodeIgnition(hostIgnitionPath: string): Promise<string> {
    return hostIgnitionPath;
  }

  async setBootOrder(device: string): Promise<void> {
    this.log.warn(`DRY RUN: not setting the boot order for ${device}`);
  }

  async reboot(when: 'now' | '+1'): Promise<void> {
    this.log.warn(`DRY RUN: not rebooting (${when}); writing the reboot marker ${this.config.rebootMarkerPath}`);
    await writeFile(this.config.rebootMarkerPath, `${new Date().toISOString()} reboot ${when}\n`);
  }

  private async installDryInstaller(): Promise<string> {
    if (this.dryInstallerPath) return this.dryInstallerPath;
    await mkdir(this.workDir, { recursive: true, mode: 0o700 });
    const path = join(this.workDir, 'dry-installer');
    await writeFile(path, `#!${process.execPath}\n${DRY_INSTALLER_SOURCE}`, { mode: 0o755 });
    await chmod(path, 0o755);
    this.dryInstallerPath = path;
    return path;
  }
}

export function describeFailure(command: string, result: { exitCode: number; tail: string; missing?: boolean; timedOut?: boolean }): string {
  if (result.missing) return `${command} is not installed on this host`;
  if (result.timedOut) return `${command} did not finish in time`;
  const lastLine =
    result.tail
      .trim()
      .split(/[\r\n]+/)
      .pop() ?? '';
  return `${command} exited with code ${result.exitCode}${lastLine ? `: ${lastLine}` : ''}`;
}
