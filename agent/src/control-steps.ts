/**
 * The steps that act on the agent and the host rather than probe them: stop-installation,
 * upgrade-agent and logs-gather (a tar.gz of host state uploaded as multipart, with logs-progress
 * reported around it, as upstream's logs_sender does).
 */
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import type { StepContext, StepRequest, StepResult, StepRunner } from './contracts.js';
import { EXIT_VALIDATION_ERROR } from './contracts.js';
import { decodeStepArgs, type RequestStepType, type StepRequests } from '../../contracts/step-requests.js';
import { encodeStepOutput } from '../../contracts/step-replies.js';

export interface LogFile {
  readonly name: string;
  readonly content: string | Uint8Array;
}

export interface LogsGatherRequest {
  readonly cluster_id: string;
  readonly host_id: string;
  readonly infra_env_id: string;
  readonly bootstrap?: boolean;
  readonly installer_gather?: boolean;
  readonly master_ips?: readonly string[];
}

/** What goes into the bundle: each entry one file under logs_host_<host_id>/. */
export type LogCollector = (request: LogsGatherRequest, context: StepContext) => Promise<LogFile[]>;

const failed = (error: string): StepResult => ({ exit_code: EXIT_VALIDATION_ERROR, error });

/** The step's request by the service's own definition of its args (what upstream's agent accepts), or the reason it is not one. */
export function readRequest<T extends RequestStepType>(stepType: T, request: StepRequest): StepRequests[T] | string {
  try {
    return decodeStepArgs(stepType, request.args);
  } catch (error) {
    return (error as Error).message;
  }
}

export const stopInstallationStep: StepRunner = async (request, context) => {
  const refused = readRequest('stop-installation', request);
  if (typeof refused === 'string') return failed(refused);
  const result = await context.exec('podman', ['stop', '-i', '-t', '5', 'assisted-installer'], { signal: context.signal, timeoutMs: 30_000 });
  if (result.missing) return failed('podman is not installed on this host: cannot stop the installer container');
  return result.exitCode === 0
    ? { exit_code: 0, output: result.stdout.trim() }
    : { exit_code: result.exitCode, error: result.stderr.trim() || `podman stop exited with ${result.exitCode}` };
};

/** One pull at a time, as upstream: a second request while one runs answers at once with nothing. */
export function upgradeAgentStep(pull?: (image: string, context: StepContext) => Promise<string | undefined>): StepRunner {
  let busy = false;
  const podmanPull = async (image: string, context: StepContext): Promise<string | undefined> => {
    const result = await context.exec('podman', ['pull', image], { signal: context.signal, timeoutMs: 10 * 60_000 });
    if (result.missing) return 'podman is not installed on this host';
    return result.exitCode === 0 ? undefined : result.stderr.trim() || `podman pull exited with ${result.exitCode}`;
  };
  return async (request, context) => {
    const body = readRequest('upgrade-agent', request);
    if (typeof body === 'string') return failed(body);
    if (busy) return { exit_code: 0 };
    busy = true;
    try {
      const problem = await (pull ?? podmanPull)(body.agent_image, context);
      if (problem) context.log.warn(`agent upgrade to ${body.agent_image} failed: ${problem}`);
      return { exit_code: 0, output: encodeStepOutput('upgrade-agent', { agent_image: body.agent_image, result: problem ? 'failure' : 'success' }) };
    } finally {
      busy = false;
    }
  };
}

/** Commands whose output explains a host's disks, network and services, each saved as one file. */
const HOST_COMMANDS: readonly { file: string; command: string; args: string[]; installerGather?: boolean }[] = [
  { file: 'mount.logs', command: 'lsblk', args: ['-o', 'NAME,MAJ:MIN,SIZE,TYPE,FSTYPE,KNAME,MODEL,UUID,WWN,HCTL,VENDOR,STATE,TRAN,PKNAME'] },
  { file: 'findmnt.logs', command: 'findmnt', args: ['--df'] },
  { file: 'disk-by-id.logs', command: 'ls', args: ['-l', '/dev/disk/by-id'] },
  { file: 'disk-by-path.logs', command: 'ls', args: ['-l', '/dev/disk/by-path'] },
  { file: 'ip-addr.logs', command: 'ip', args: ['-d', 'address'] },
  { file: 'ip-route.logs', command: 'ip', args: ['route', 'show', 'table', 'all'] },
  { file: 'agent.logs', command: 'journalctl', args: ['--no-pager', '--all', '-u', 'agent.service', '-u', 'assisted-agent.service'] },
  { file: 'installer.logs', command: 'journalctl', args: ['--no-pager', '--all', 'TAG=installer'] },
  { file: 'dmesg.logs', command: 'dmesg', args: ['-T'], installerGather: true },
  { file: 'journal.logs', command: 'journalctl', args: ['--no-pager', '--all', '--boot'], installerGather: true },
];

/** Runs the commands on this host; what is missing or fails is written to report.logs instead. */
export const collectHostLogs: LogCollector = async (request, context) => {
  const files: LogFile[] = [];
  const problems: string[] = [];
  for (const entry of HOST_COMMANDS) {
    if (entry.installerGather && !request.installer_gather) continue;
    if (context.signal.aborted) break;
    const result = await context.exec(entry.command, entry.args, { signal: context.signal, timeoutMs: 5 * 60_000 });
    const line = `${entry.command} ${entry.args.join(' ')}`;
    if (result.missing) problems.push(`${line}: ${entry.command} is not installed`);
    else if (result.exitCode !== 0) problems.push(`${line}: exit ${result.exitCode}: ${result.stderr.trim().slice(0, 500)}`);
    if (result.stdout) files.push({ name: entry.file, content: result.stdout });
  }
  files.push({ name: 'report.logs', content: problems.length ? `${problems.join('\n')}\n` : 'all collectors succeeded\n' });
  return files;
};

export async function tarGz(directory: string, files: readonly LogFile[]): Promise<Uint8Array> {
  const pack = tar.pack();
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
    pack.on('error', reject);
  });
  pack.pipe(gzip);
  const mtime = new Date();
  pack.entry({ name: `${directory}/`, type: 'directory', mode: 0o755, mtime });
  for (const file of files) {
    const content = typeof file.content === 'string' ? Buffer.from(file.content) : Buffer.from(file.content);
    pack.entry({ name: `${directory}/${file.name}`, mode: 0o644, mtime, size: content.length }, content);
  }
  pack.finalize();
  await finished;
  return new Uint8Array(Buffer.concat(chunks));
}

export function logsGatherStep(collect: LogCollector = collectHostLogs): StepRunner {
  return async (request, context) => {
    const body = readRequest('logs-gather', request);
    if (typeof body === 'string') return failed(body);
    const progressPath = `/v2/infra-envs/${body.infra_env_id}/hosts/${body.host_id}/logs-progress`;
    const progress = async (state: 'requested' | 'collecting' | 'completed') => {
      try {
        const response = await context.api.call('PUT', progressPath, { json: { logs_state: state }, signal: context.signal });
        if (response.status >= 300) context.log.warn(`logs-progress ${state} refused: HTTP ${response.status}`);
      } catch (error) {
        context.log.warn(`logs-progress ${state} not sent: ${(error as Error).message}`);
      }
    };
    await progress('requested');
    const files = await collect(body, context);
    await progress('collecting');
    const archive = await tarGz(`logs_host_${body.host_id}`, files);
    const form = new FormData();
    form.append('upfile', new Blob([archive], { type: 'application/gzip' }), 'logs.tar.gz');
    let response: Awaited<ReturnType<typeof context.api.call>>;
    try {
      response = await context.api.call('POST', `/v2/clusters/${body.cluster_id}/logs`, {
        query: { host_id: body.host_id, infra_env_id: body.infra_env_id, logs_type: 'host' },
        body: form,
        signal: context.signal,
      });
    } catch (error) {
      return { exit_code: 1, error: `uploading the logs failed: ${(error as Error).message}` };
    }
    if (response.status >= 300)
      return { exit_code: 1, error: `the service refused the logs upload: HTTP ${response.status}: ${(await response.text()).slice(0, 300)}` };
    await progress('completed');
    return { exit_code: 0, output: encodeStepOutput('logs-gather', { uploaded_bytes: archive.length, files: files.map((file) => file.name) }) };
  };
}

/** The control steps of a real host. */
export function controlSteps(): Record<string, StepRunner> {
  return {
    'stop-installation': stopInstallationStep,
    'upgrade-agent': upgradeAgentStep(),
    'logs-gather': logsGatherStep(),
  };
}
