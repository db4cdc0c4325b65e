/**
 * How the bundles bench measures a bundle: a fresh `node` per import, timed as wall and CPU time;
 * the files an import loads, from a module loader hook; the largest packages of init code; the
 * first calls timed after init; the requests the Api's bundle must answer; and the loopback
 * Secrets Manager functions read the agent signing key from at init.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { PROJECT_ROOT } from '../../lib/assisted-stack.js';
import { functionBundleOptions } from '../../lib/esbuild-options.js';
import type { Bundle } from './stack.js';

/** Secrets Manager's GetSecretValue on loopback: the one AWS call a function makes at init (config.ts reads the agent signing key). */
export async function secretsManagerStandIn(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  let requests = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests++;
      const { SecretId } = JSON.parse(body) as { SecretId: string };
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ ARN: SecretId, Name: SecretId, SecretString: pem, VersionId: 'bench', CreatedDate: Date.now() / 1000 }));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

export interface Timing {
  /** Wall time of the process: start, the script, exit. */
  wallMs: number;
  /** CPU time the process used by the script's end (user + system, every thread). */
  cpuMs: number;
  /** What the script itself reported (a first call's time), if anything. */
  reported?: number;
  stdout: string;
}

/** One fresh `node` running the script: its wall time, and its CPU time as it reports it at the end. */
export function timeNode(script: string, cwd: string, environment: Record<string, string>, nodeArgs: string[] = []): Promise<Timing> {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const measured = `${script}\n{ const u = process.cpuUsage(); process.stdout.write('\\ncpu ' + (u.user + u.system) / 1000); }`;
    const child = spawn(process.execPath, [...nodeArgs, '--input-type=module', '-e', measured], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) return fail(new Error(`import failed (${code}): ${stderr.slice(0, 800)}`));
      const cpu = /\ncpu ([\d.]+)$/.exec(stdout);
      const reported = /^first ([\d.]+)$/m.exec(stdout);
      done({ wallMs, cpuMs: Number(cpu?.[1] ?? NaN), ...(reported ? { reported: Number(reported[1]) } : {}), stdout });
    });
  });
}

/**
 * The files a script loads from the bundle, from a module loader hook in an untimed run: for an
 * import of index.mjs, the entry and the chunks it imports statically, not those left to a later
 * `import()`.
 */
export async function loadedFiles(bundle: Bundle, script: string, environment: Record<string, string>): Promise<string[]> {
  const list = path.join(bundle.dir, '..', `loaded-${path.basename(bundle.dir)}.txt`);
  writeFileSync(list, '');
  const hook = `export async function load(url, context, next) { if (url.startsWith('file:')) (await import('node:fs')).appendFileSync(${JSON.stringify(list)}, url + '\\n'); return next(url, context); }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  await timeNode(script, bundle.dir, environment, ['--import', `data:text/javascript,${encodeURIComponent(register)}`]);
  const files = [...new Set(readFileSync(list, 'utf8').split('\n').filter(Boolean))].map((url) => new URL(url).pathname);
  const outside = files.filter((file) => !file.startsWith(`${bundle.dir}/`));
  if (outside.length) throw new Error(`${bundle.names[0]} loads code from outside its asset: ${outside.join(', ')}`);
  return files;
}

export const bytesOf = (files: string[]) => files.reduce((sum, file) => sum + statSync(file).size, 0);

/**
 * The largest packages of the code a bundle loads at init, from esbuild's metafile of the same
 * split build as the stack's: index.mjs and the chunks it imports statically.
 */
export function largestPackages(entry: string, count = 10): string {
  const outdir = mkdtempSync(path.join(tmpdir(), 'bundles-analyze-'));
  try {
    const { metafile } = buildSync({ ...functionBundleOptions(PROJECT_ROOT, entry, outdir), metafile: true, write: false });
    const index = Object.keys(metafile.outputs).find((file) => file.endsWith('/index.mjs'))!;
    const atInit = new Set<string>();
    const pending = [index];
    while (pending.length) {
      const file = pending.pop()!;
      if (atInit.has(file)) continue;
      atInit.add(file);
      for (const imported of metafile.outputs[file]!.imports)
        if (imported.kind === 'import-statement' && metafile.outputs[imported.path]) pending.push(imported.path);
    }
    const byPackage = new Map<string, number>();
    for (const file of atInit) {
      for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[file]!.inputs)) {
        const key = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.split('/').slice(0, 2).join('/');
        byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
      }
    }
    return [...byPackage]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)}`)
      .join(', ');
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * What a function loads on a first call that most of its invocations make, named by the chunk of
 * the module loaded (esbuild names a dynamically imported module's chunk after its file).
 */
export const FIRST_CALLS: Record<string, { what: string; chunk: string }[]> = {
  'lambdas/handlers/api/index.ts': [
    { what: 'agent poll (v2GetNextSteps)', chunk: 'v2GetNextSteps' },
    { what: 'step reply (v2PostStepReply)', chunk: 'v2PostStepReply' },
    { what: 'host registration (v2RegisterHost)', chunk: 'v2RegisterHost' },
    { what: 'cluster list (v2ListClusters)', chunk: 'v2ListClusters' },
    { what: 'cluster (v2GetCluster)', chunk: 'v2GetCluster' },
  ],
  // Every request presigns an S3 URL or redirects to one; every batch lists and deletes objects.
  'lambdas/handlers/images/index.ts': [{ what: 'S3 adapter and client (every request)', chunk: 'blobs' }],
  'lambdas/handlers/workflow/purge-objects.ts': [{ what: 'S3 adapter and client (every batch)', chunk: 'blobs' }],
};

export function chunkOf(bundle: Bundle, name: string): string {
  const found = readdirSync(path.join(bundle.dir, 'chunks')).filter((file) => file.startsWith(`${name}-`) && file.endsWith('.mjs'));
  if (found.length !== 1) throw new Error(`${bundle.names[0]}: expected one chunk named ${name}, found ${found.length}`);
  return path.join(bundle.dir, 'chunks', found[0]!);
}

/** Requests the Api's bundle answers without calling AWS, and what it must answer (run once, untimed). */
export const API_SMOKE: { method: string; path: string; headers?: Record<string, string>; body?: string; status: number }[] = [
  { method: 'GET', path: '/api/assisted-install/v2/no-such-thing', status: 404 },
  { method: 'DELETE', path: '/api/assisted-install/v2/openapi.yaml', status: 405 },
  { method: 'POST', path: '/api/assisted-install/v2/clusters', headers: { 'content-type': 'text/plain' }, body: 'x', status: 415 },
  { method: 'GET', path: '/api/assisted-install/v2/clusters', status: 401 },
  { method: 'GET', path: '/api/assisted-install/v2/openapi.yaml', status: 200 },
];

export function apiSmokeScript(index: string, handler: string): string {
  const events = API_SMOKE.map(({ method, path, headers = {}, body }) => ({
    httpMethod: method,
    path,
    headers,
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    body: body ?? null,
    isBase64Encoded: false,
    requestContext: { requestId: 'bench' },
  }));
  return `const m = await import(${JSON.stringify(index)});
const context = { awsRequestId: 'bench', functionName: 'Api', getRemainingTimeInMillis: () => 30000 };
const statuses = [];
for (const event of ${JSON.stringify(events)}) statuses.push((await m[${JSON.stringify(handler)}](event, context)).statusCode);
process.stdout.write('statuses ' + JSON.stringify(statuses) + '\\n');`;
}
