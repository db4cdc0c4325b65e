/**
 * Control steps against a stand-in service: logs-gather reports progress, uploads a tar.gz as the
 * multipart field `upfile`, and says in report.logs what it could not collect; stop-installation and
 * upgrade-agent answer as upstream, including when a tool is missing.
 */
import { gunzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { StepContext } from '../../../agent/src/contracts.js';
import { collectHostLogs, logsGatherStep, stopInstallationStep, upgradeAgentStep } from '../../../agent/src/control-steps.js';
import type { CommandRunner } from '../../../agent/src/exec.js';
import { createLog } from '../../../agent/src/log.js';
import { createTransport } from '../../../agent/src/transport.js';
import { FakeService } from './fake-service.js';

const log = createLog({ level: 'error', sink: () => undefined });
const services: FakeService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.stop();
});

/** Answers like a host where journalctl is missing and lsblk fails; everything else prints its name. */
const fakeHost: CommandRunner = async (command, args) => {
  if (command === 'journalctl') return { exitCode: 127, stdout: '', stderr: '', missing: true };
  if (command === 'lsblk') return { exitCode: 32, stdout: '', stderr: 'lsblk: failed to access sysfs directory' };
  if (command === 'podman') return { exitCode: 0, stdout: `podman ${args.join(' ')}\n`, stderr: '' };
  return { exitCode: 0, stdout: `output of ${command} ${args.join(' ')}\n`, stderr: '' };
};

async function untar(archive: Buffer): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const extract = tar.extract();
  await new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on('end', () => {
        files[header.name] = Buffer.concat(chunks).toString('utf8');
        next();
      });
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
    Readable.from([gunzipSync(archive)]).pipe(extract);
  });
  return files;
}

describe('control steps', () => {
  it('logs-gather: progress requested → collecting → completed around a multipart tar.gz upload', async () => {
    const service = await new FakeService(() => ({ status: 204 })).start();
    services.push(service);
    const api = createTransport({ url: service.url, token: 't', agentVersion: 'v' });
    const context: StepContext = { hostId: 'h1', infraEnvId: 'ie1', api, exec: fakeHost, log, signal: new AbortController().signal };
    const request = { cluster_id: 'c1', host_id: 'h1', infra_env_id: 'ie1', bootstrap: false, installer_gather: true, master_ips: [] };
    const result = await logsGatherStep()({ step_type: 'logs-gather', step_id: 'logs-gather-1', args: [JSON.stringify(request)] }, context);
    expect(result.exit_code, result.error).toBe(0);

    const progress = service.requests.filter((r) => r.method === 'PUT').map((r) => [r.path, JSON.parse(r.body).logs_state]);
    expect(progress).toEqual(
      ['requested', 'collecting', 'completed'].map((state) => ['/api/assisted-install/v2/infra-envs/ie1/hosts/h1/logs-progress', state]),
    );
    const upload = service.requests.find((r) => r.method === 'POST')!;
    expect(upload.path).toBe('/api/assisted-install/v2/clusters/c1/logs');
    expect(Object.fromEntries(upload.query)).toEqual({ host_id: 'h1', infra_env_id: 'ie1', logs_type: 'host' });
    expect(upload.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);

    const form = await new Response(upload.raw, { headers: { 'content-type': upload.headers['content-type']! } }).formData();
    const file = form.get('upfile') as File;
    expect(file.name).toBe('logs.tar.gz');
    const files = await untar(Buffer.from(await file.arrayBuffer()));
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining(['logs_host_h1/', 'logs_host_h1/ip-addr.logs', 'logs_host_h1/dmesg.logs', 'logs_host_h1/report.logs']),
    );
    expect(files['logs_host_h1/ip-addr.logs']).toBe('output of ip -d address\n');
    expect(files['logs_host_h1/report.logs']).toMatch(/journalctl .*: journalctl is not installed/);
    expect(files['logs_host_h1/report.logs']).toMatch(/lsblk .*: exit 32: lsblk: failed to access sysfs directory/);
  });

  it('logs-gather: a refused upload is a failed step with the reason', async () => {
    const service = await new FakeService((r) =>
      r.method === 'POST' ? { status: 400, body: { code: '400', reason: 'logs_type is invalid' } } : { status: 204 },
    ).start();
    services.push(service);
    const api = createTransport({ url: service.url });
    const context: StepContext = { hostId: 'h1', infraEnvId: 'ie1', api, exec: fakeHost, log, signal: new AbortController().signal };
    const result = await logsGatherStep(async () => [{ name: 'a.logs', content: 'a' }])(
      { step_type: 'logs-gather', step_id: 's', args: [JSON.stringify({ cluster_id: 'c', host_id: 'h1', infra_env_id: 'ie1' })] },
      context,
    );
    expect(result.exit_code).toBe(1);
    expect(result.error).toMatch(/refused the logs upload: HTTP 400: .*logs_type is invalid/);
    expect((await logsGatherStep()({ step_type: 'logs-gather', step_id: 's', args: ['{}'] }, context)).exit_code).toBe(-1);
  });

  it('collects only the installer-gather files when asked', async () => {
    const context = {
      hostId: 'h',
      infraEnvId: 'i',
      api: createTransport({ url: 'http://127.0.0.1:9' }),
      exec: fakeHost,
      log,
      signal: new AbortController().signal,
    };
    const names = (await collectHostLogs({ cluster_id: 'c', host_id: 'h', infra_env_id: 'i', installer_gather: false }, context)).map((f) => f.name);
    expect(names).not.toContain('dmesg.logs');
    expect(names).toContain('report.logs');
  });

  it('stop-installation stops the installer container, and says so when podman is missing', async () => {
    const context = (exec: CommandRunner) => ({
      hostId: 'h',
      infraEnvId: 'i',
      api: createTransport({ url: 'http://127.0.0.1:9' }),
      exec,
      log,
      signal: new AbortController().signal,
    });
    expect(await stopInstallationStep({ step_type: 'stop-installation', step_id: 's', args: [] }, context(fakeHost))).toEqual({
      exit_code: 0,
      output: 'podman stop -i -t 5 assisted-installer',
    });
    const missing: CommandRunner = async () => ({ exitCode: 127, stdout: '', stderr: '', missing: true });
    expect(await stopInstallationStep({ step_type: 'stop-installation', step_id: 's', args: [] }, context(missing))).toEqual({
      exit_code: -1,
      error: 'podman is not installed on this host: cannot stop the installer container',
    });
    expect((await stopInstallationStep({ step_type: 'stop-installation', step_id: 's', args: ['x'] }, context(fakeHost))).exit_code).toBe(-1);
  });

  it('upgrade-agent pulls the image and always answers exit 0 with success or failure', async () => {
    const context = (exec: CommandRunner) => ({
      hostId: 'h',
      infraEnvId: 'i',
      api: createTransport({ url: 'http://127.0.0.1:9' }),
      exec,
      log,
      signal: new AbortController().signal,
    });
    const step = upgradeAgentStep();
    const request = { step_type: 'upgrade-agent' as const, step_id: 'u', args: [JSON.stringify({ agent_image: 'quay.io/x/agent:2' })] };
    expect(await step(request, context(fakeHost))).toEqual({ exit_code: 0, output: JSON.stringify({ agent_image: 'quay.io/x/agent:2', result: 'success' }) });
    const failing: CommandRunner = async () => ({ exitCode: 125, stdout: '', stderr: 'manifest unknown' });
    expect(await step(request, context(failing))).toEqual({ exit_code: 0, output: JSON.stringify({ agent_image: 'quay.io/x/agent:2', result: 'failure' }) });
  });
});
