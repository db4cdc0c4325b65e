import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import {
  allLogsFileName,
  controllerLogsFileName,
  hostLogsFileName,
  logsBundleEntries,
  logsRole,
  parseDownloadLogsType,
  parseLogsState,
  parseUploadLogsType,
  requireControllerLogs,
  requireDownloadHostId,
  requireHostLogs,
  requireUploadHostId,
  sanitizeFileName,
  storedLogObject,
  withLogsProgress,
  withLogsUploaded,
} from '../../lambdas/domain/install/logs.js';
import { clusterLogsPrefix, controllerLogsObjectKey, hostLogsObjectKey } from '../../lambdas/domain/core/object-keys.js';
import { tarArchive } from '../../lambdas/domain/image/tar-archive.js';
import { readMultipartFile, UPLOAD_FIELD } from '../../lambdas/handlers/api/operations/V2UploadLogs.js';

const NOW = '2024-08-15T12:55:31.616Z';
const LATER = '2024-08-15T13:10:00.000Z';
const HOST_ID = '4d3e62b1-6f5c-4a3b-9a66-3d0b3c8a2f10';
const OTHER_HOST_ID = '7a9e0c55-2b1d-4a8f-8c3e-5f1e2d3c4b5a';
const CLUSTER_ID = '2d5a3a5e-4d43-4e1c-9d0b-8f6a4b7f0c11';

function problem(action: () => unknown): { kind: string; message: string } {
  try {
    action();
  } catch (error) {
    if (error instanceof DomainError) return { kind: error.kind, message: error.message };
    throw error;
  }
  throw new Error('expected a DomainError');
}

async function problemOf(action: Promise<unknown>): Promise<{ kind: string; message: string }> {
  const error = await action.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error instanceof DomainError) return { kind: error.kind, message: error.message };
  throw new Error(`expected a DomainError, got ${String(error)}`);
}

describe('logs progress and upload stamps', () => {
  it('takes the reported state and restarts the clock only on requested', () => {
    const requested = withLogsProgress({ role: 'master' }, 'requested', 'logs_started_at', NOW);
    expect(requested).toEqual({ role: 'master', logs_info: 'requested', logs_started_at: NOW });
    const collecting = withLogsProgress(requested, 'collecting', 'logs_started_at', LATER);
    expect(collecting).toEqual({ role: 'master', logs_info: 'collecting', logs_started_at: NOW });
    expect(withLogsProgress(collecting, 'completed', 'logs_started_at', LATER)).toMatchObject({ logs_info: 'completed', logs_started_at: NOW });
    expect(withLogsProgress(collecting, 'timeout', 'logs_started_at', LATER)).toMatchObject({ logs_info: 'timeout', logs_started_at: NOW });
    expect(withLogsProgress(collecting, '', 'logs_started_at', LATER)).toMatchObject({ logs_info: '', logs_started_at: NOW });
    // A second request (the installer asks again after a reboot) restarts the clock.
    expect(withLogsProgress(collecting, 'requested', 'controller_logs_started_at', LATER)).toMatchObject({
      logs_info: 'requested',
      controller_logs_started_at: LATER,
    });
  });

  it('stamps an upload and reports collecting, without touching the original', () => {
    const before = { logs_info: 'requested', logs_started_at: NOW };
    expect(withLogsUploaded(before, 'logs_collected_at', LATER)).toEqual({ logs_info: 'collecting', logs_started_at: NOW, logs_collected_at: LATER });
    expect(before).toEqual({ logs_info: 'requested', logs_started_at: NOW });
  });

  it('accepts the logs_state enum, the empty state included, and nothing else', () => {
    for (const state of ['', 'requested', 'collecting', 'completed', 'timeout']) expect(parseLogsState(state)).toBe(state);
    expect(problem(() => parseLogsState('done'))).toMatchObject({ kind: 'bad-request' });
    expect(problem(() => parseLogsState(undefined))).toMatchObject({ kind: 'bad-request' });
  });

  it('reads the logs types as upstream: uploads are host or controller, downloads default to all', () => {
    expect(parseUploadLogsType('host')).toBe('host');
    expect(parseUploadLogsType('controller')).toBe('controller');
    expect(problem(() => parseUploadLogsType('all'))).toMatchObject({ kind: 'bad-request' });
    expect(parseDownloadLogsType(undefined)).toBe('all');
    expect(parseDownloadLogsType('')).toBe('all');
    expect(parseDownloadLogsType('host')).toBe('host');
    expect(parseDownloadLogsType('controller')).toBe('controller');
  });

  it('requires a host id where upstream does, and logs before they can be downloaded', () => {
    expect(problem(() => requireUploadHostId(undefined))).toEqual({ kind: 'bad-request', message: 'cluster_id and host_id are required for upload host logs' });
    expect(requireUploadHostId(HOST_ID)).toBe(HOST_ID);
    expect(problem(() => requireDownloadHostId(undefined))).toMatchObject({ kind: 'bad-request' });
    expect(problem(() => requireHostLogs({ logs_info: 'requested' }, HOST_ID))).toEqual({
      kind: 'conflict',
      message: `Logs for host ${HOST_ID} were not found`,
    });
    expect(() => requireHostLogs({ logs_collected_at: NOW }, HOST_ID)).not.toThrow();
    expect(problem(() => requireControllerLogs({}, CLUSTER_ID))).toMatchObject({ kind: 'conflict' });
    expect(() => requireControllerLogs({ controller_logs_collected_at: NOW }, CLUSTER_ID)).not.toThrow();
  });
});

describe('download names', () => {
  it('sanitises as kennygrant/sanitize Name does', () => {
    expect(sanitizeFileName('My Cluster')).toBe('my-cluster');
    expect(sanitizeFileName('master_0.lab:example')).toBe('master-0.lab-example');
    expect(sanitizeFileName('a/b/Host One')).toBe('host-one');
    expect(sanitizeFileName('Crème brûlée & co')).toBe('creme-brulee-co');
    expect(sanitizeFileName('x -- y')).toBe('x-y');
    expect(sanitizeFileName('weird!#$%name')).toBe('weirdname');
  });

  it('names host, controller and bundle files as upstream', () => {
    const host = { hostId: HOST_ID, hostName: 'Master-0', attributes: { role: 'master' } };
    expect(hostLogsFileName('ocp prod', host)).toBe('ocp-prod_master_master-0.tar.gz');
    expect(hostLogsFileName('ocp', { ...host, attributes: { role: 'master', bootstrap: true } })).toBe('ocp_bootstrap_master-0.tar.gz');
    expect(logsRole({})).toBe('auto-assign');
    expect(controllerLogsFileName('ocp', CLUSTER_ID)).toBe(`ocp_${CLUSTER_ID}_controller.tar.gz`);
    expect(allLogsFileName('ocp', CLUSTER_ID)).toBe(`ocp_${CLUSTER_ID}.tar`);
  });
});

describe('the all-logs bundle', () => {
  const prefix = clusterLogsPrefix('org-1', CLUSTER_ID);

  it('finds uploads under the cluster prefix, one folder deep', () => {
    expect(storedLogObject(prefix, hostLogsObjectKey('org-1', CLUSTER_ID, HOST_ID))).toEqual({
      key: `${prefix}${HOST_ID}/logs.tar.gz`,
      folder: HOST_ID,
      name: 'logs.tar.gz',
    });
    expect(storedLogObject(prefix, controllerLogsObjectKey('org-1', CLUSTER_ID))).toMatchObject({ folder: 'controller', name: 'logs.tar.gz' });
    expect(storedLogObject(prefix, `${prefix}stray.txt`)).toBeUndefined();
    expect(storedLogObject(prefix, `${prefix}a/b/c`)).toBeUndefined();
    expect(storedLogObject(prefix, `orgs/org-2/clusters/${CLUSTER_ID}/logs/${HOST_ID}/logs.tar.gz`)).toBeUndefined();
  });

  it('names each upload by its host, the controller, or the id of a host that is gone, and never twice', () => {
    const objects = [HOST_ID, OTHER_HOST_ID, 'controller', '0b7c9f3e-1111-4c2d-8e9f-aaaaaaaaaaaa'].map(
      (folder) => storedLogObject(prefix, `${prefix}${folder}/logs.tar.gz`)!,
    );
    const hosts = new Map([
      [HOST_ID, { hostId: HOST_ID, hostName: 'node', attributes: { role: 'master' } }],
      [OTHER_HOST_ID, { hostId: OTHER_HOST_ID, hostName: 'node', attributes: { role: 'master' } }],
    ]);
    const paths = logsBundleEntries('ocp', objects, hosts, 'controller').map((entry) => entry.path);
    expect(paths).toEqual([
      'ocp_host_0b7c9f3e-1111-4c2d-8e9f-aaaaaaaaaaaa_logs.tar.gz',
      'ocp_master_node.tar.gz',
      `ocp_master_node_${OTHER_HOST_ID}.tar.gz`,
      'controller_logs.tar.gz',
    ]);
  });
});

async function multipart(parts: { name: string; content: Buffer | string; file?: boolean }[]): Promise<{ contentType: string; bytes: Buffer }> {
  const form = new FormData();
  for (const part of parts) {
    if (part.file === false) form.append(part.name, String(part.content));
    else form.append(part.name, new Blob([part.content]), 'logs.tar.gz');
  }
  const request = new Request('http://127.0.0.1/', { method: 'POST', body: form });
  return { contentType: request.headers.get('content-type')!, bytes: Buffer.from(await request.arrayBuffer()) };
}

describe('reading the uploaded file', () => {
  const archive = gzipSync(tarArchive([{ path: 'logs_host_x/agent.logs', contents: randomBytes(600_000).toString('base64'), mode: 0o644 }]));

  it('returns the upfile bytes exactly, from a base64 body longer than one decoding piece', async () => {
    const { contentType, bytes } = await multipart([
      { name: 'note', content: 'hello', file: false },
      { name: UPLOAD_FIELD, content: archive },
    ]);
    expect(bytes.toString('base64').length).toBeGreaterThan(256 * 1024 * 2);
    const file = await readMultipartFile({ contentType, body: bytes.toString('base64'), isBase64Encoded: true }, UPLOAD_FIELD, 10 * 1024 * 1024);
    expect(file.equals(archive)).toBe(true);
    expect(gunzipSync(file).subarray(0, 22).toString()).toBe('logs_host_x/agent.logs');
  });

  it('takes a text body the gateway did not encode', async () => {
    const { contentType, bytes } = await multipart([{ name: UPLOAD_FIELD, content: 'plain text log\n' }]);
    const file = await readMultipartFile({ contentType, body: bytes.toString('utf8'), isBase64Encoded: false }, UPLOAD_FIELD, 1024);
    expect(file.toString()).toBe('plain text log\n');
  });

  it('answers 400 without an upfile part', async () => {
    const { contentType, bytes } = await multipart([{ name: 'file', content: archive }]);
    expect(
      await problemOf(readMultipartFile({ contentType, body: bytes.toString('base64'), isBase64Encoded: true }, UPLOAD_FIELD, 10 * 1024 * 1024)),
    ).toMatchObject({ kind: 'bad-request', message: expect.stringContaining('"upfile"') });
  });

  it('answers 400 for an empty body, a missing boundary and a truncated form', async () => {
    const { contentType, bytes } = await multipart([{ name: UPLOAD_FIELD, content: archive }]);
    expect(await problemOf(readMultipartFile({ contentType, body: null, isBase64Encoded: false }, UPLOAD_FIELD, 1024))).toMatchObject({ kind: 'bad-request' });
    expect(
      await problemOf(readMultipartFile({ contentType: 'multipart/form-data', body: bytes.toString('base64'), isBase64Encoded: true }, UPLOAD_FIELD, 1024)),
    ).toMatchObject({ kind: 'bad-request' });
    const truncated = bytes.subarray(0, bytes.length - 200).toString('base64');
    expect(await problemOf(readMultipartFile({ contentType, body: truncated, isBase64Encoded: true }, UPLOAD_FIELD, 10 * 1024 * 1024))).toMatchObject({
      kind: 'bad-request',
    });
  });

  it('answers 413 past the limit and accepts exactly the limit', async () => {
    const { contentType, bytes } = await multipart([{ name: UPLOAD_FIELD, content: archive }]);
    const body = bytes.toString('base64');
    expect(await problemOf(readMultipartFile({ contentType, body, isBase64Encoded: true }, UPLOAD_FIELD, archive.length - 1))).toMatchObject({
      kind: 'payload-too-large',
    });
    expect((await readMultipartFile({ contentType, body, isBase64Encoded: true }, UPLOAD_FIELD, archive.length)).length).toBe(archive.length);
  });
});
