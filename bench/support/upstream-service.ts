/**
 * Upstream's own assisted-service (with a PostgreSQL 15 of its own), started from the shared tool
 * ../shared/tools/upstream-service beside the project: the oracle of the conformance harness
 * (test/conformance/) and the other side of every speed ratio. Lives in bench/ because bench code may
 * not import test/; tests import it from here.
 *
 * Each start gets a fresh working directory (an empty database) that stop() removes.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { childrenOf } from './process-tree.js';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
const POSTGRES_INITDB = '/usr/lib/postgresql/15/bin/initdb';

/**
 * The tool's folder: UPSTREAM_SERVICE_DIR, else shared/ beside the project (developer machines and
 * CI), or beside the folder holding it (a git worktree in a folder of worktrees).
 */
export function upstreamServiceDir(): string {
  const candidates = process.env.UPSTREAM_SERVICE_DIR
    ? [process.env.UPSTREAM_SERVICE_DIR]
    : [path.resolve(projectRoot, '../shared/tools/upstream-service'), path.resolve(projectRoot, '../../shared/tools/upstream-service')];
  const dir = candidates.find((candidate) => existsSync(path.join(candidate, 'start.sh')));
  if (!dir) {
    throw new Error(
      `upstream service tool not found at ${candidates.join(' or ')}: it is shared/tools/upstream-service beside the project (set UPSTREAM_SERVICE_DIR to place it elsewhere)`,
    );
  }
  return dir;
}

export interface UpstreamService {
  /** Base URL, e.g. http://127.0.0.1:PORT (the API is under /api/assisted-install/v2). */
  readonly url: string;
  readonly workdir: string;
  /** The service's and PostgreSQL's processes (postmaster and its backends) now: for CPU accounting. */
  pids(): number[];
  /** Stops the service and PostgreSQL and removes the working directory. Safe to call twice. */
  stop(): Promise<void>;
}

export interface UpstreamServiceOptions {
  /** Listening port; a free one by default. */
  port?: number;
  /**
   * Upstream's monitor periods (Go durations). Upstream judges hosts and clusters only in these
   * monitors (defaults 8 s and 10 s); the harness shortens them so that statuses settle in about a
   * second. Benches comparing speed should keep upstream's defaults: pass `null`.
   */
  monitorIntervals?: { host: string; cluster: string } | null;
  /** More environment for the service (start.sh passes its environment on). */
  env?: Record<string, string>;
  /** Keep the working directory after stop() (to read service.log). */
  keepWorkdir?: boolean;
}

/** Fast monitors: what upstream's own subsystem tests run with. */
export const FAST_MONITORS = { host: '1s', cluster: '1s' } as const;

function run(file: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, timeout: timeoutMs, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(file)} failed: ${error.message}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

export async function startUpstreamService(options: UpstreamServiceOptions = {}): Promise<UpstreamService> {
  const dir = upstreamServiceDir();
  if (!existsSync(POSTGRES_INITDB)) {
    throw new Error(`upstream's service needs PostgreSQL 15 (${POSTGRES_INITDB} is missing): apt-get install postgresql-15`);
  }
  // Under /tmp, reachable by the postgres user: mkdtemp makes 0700, start.sh needs it traversable.
  const workdir = mkdtempSync(path.join(tmpdir(), 'upstream-service-'));
  chmodSync(workdir, 0o755);
  const monitors = options.monitorIntervals === undefined ? FAST_MONITORS : options.monitorIntervals;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // As upstream's hosted deployment runs: with it, every cluster monitors the cvo operator too.
    CHECK_CLUSTER_VERSION: 'true',
    // Two-node clusters with fencing (TNF) are a topology this service offers; upstream's deployment
    // switches them on with this flag (off by default), so the oracle runs with them, as we do.
    TNF_CLUSTERS_SUPPORT: 'true',
    ...(monitors ? { HOST_MONITOR_INTERVAL: monitors.host, CLUSTER_MONITOR_INTERVAL: monitors.cluster } : {}),
    ...options.env,
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await run(path.join(dir, 'stop.sh'), [workdir], process.env, 60_000).catch((error) => console.error(String(error)));
    if (!options.keepWorkdir) rmSync(workdir, { recursive: true, force: true });
  };
  let stdout: string;
  try {
    ({ stdout } = await run(path.join(dir, 'start.sh'), [workdir, ...(options.port ? [String(options.port)] : [])], env, 240_000));
  } catch (error) {
    const log = existsSync(path.join(workdir, 'service.log')) ? readFileSync(path.join(workdir, 'service.log'), 'utf8').slice(-2_000) : '';
    await stop();
    throw new Error(`upstream's service did not start: ${(error as Error).message}${log ? `\nservice.log ends:\n${log}` : ''}`);
  }
  const url = /^URL=(\S+)$/m.exec(stdout)?.[1];
  if (!url) {
    await stop();
    throw new Error(`start.sh printed no URL: ${stdout}`);
  }
  const servicePid = Number(readFileSync(path.join(workdir, 'service.pid'), 'utf8').trim());
  const postmasterPid = () => {
    try {
      return Number(readFileSync(path.join(workdir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  };
  return {
    url,
    workdir,
    pids: () => {
      const postmaster = postmasterPid();
      return [servicePid, ...(postmaster ? [postmaster, ...childrenOf(postmaster)] : [])];
    },
    stop,
  };
}
