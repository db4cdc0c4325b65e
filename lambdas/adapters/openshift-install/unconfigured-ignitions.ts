/**
 * Unconfigured ignitions from `openshift-install agent create unconfigured-ignition`, run in the
 * function's own process on a private temporary directory: the installer named by OPENSHIFT_INSTALL
 * or found on PATH (the same setting as the installer task, lambdas/containers/installation-files.ts).
 * Without one, the SIMULATED generator (domain/image/disconnected-ignition.ts) runs only if
 * ALLOW_SIMULATED_INSTALLER=true, the switch that also allows the simulated installer (the embedded
 * runtime sets it and says so); otherwise the request gets a 409 naming what to configure.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { InstallerDirectory } from '../../domain/image/disconnected-ignition.js';
import { conflict } from '../../domain/core/errors.js';
import type { UnconfiguredIgnition, UnconfiguredIgnitionGenerator, UnconfiguredIgnitions } from '../../ports/unconfigured-ignitions.js';

const run = promisify(execFile);
/**
 * The ignition's own module (and the YAML library it renders with) is loaded by a generation only:
 * every function's container builds this port, few of them generate.
 */
const ignitionFormat = () => import('../../domain/image/disconnected-ignition.js');
/** openshift-install reads the release payload's metadata; a few minutes at most. */
const INSTALLER_TIMEOUT_MS = 5 * 60_000;
const MAX_REASON = 600;

export interface UnconfiguredIgnitionSettings {
  /** The openshift-install to run (OPENSHIFT_INSTALL), if set. */
  installer?: string;
  /** Whether the SIMULATED generator may stand in (ALLOW_SIMULATED_INSTALLER=true). */
  allowSimulated: boolean;
  log: (level: 'info' | 'warn', message: string) => void;
}

export function unconfiguredIgnitionSettings(env: NodeJS.ProcessEnv, log: UnconfiguredIgnitionSettings['log']): UnconfiguredIgnitionSettings {
  return { ...(env.OPENSHIFT_INSTALL ? { installer: env.OPENSHIFT_INSTALL } : {}), allowSimulated: env.ALLOW_SIMULATED_INSTALLER === 'true', log };
}

/** `openshift-install` on PATH, without running anything. */
function onPath(name: string, searchPath = process.env.PATH ?? ''): string | undefined {
  for (const directory of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The installer's own words, without the pull secret should it ever quote it, cut to a readable length. */
function installerReason(output: string, pullSecret: string): string {
  const text = (pullSecret ? output.split(pullSecret).join('<redacted pull secret>') : output).trim();
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const tail = lines.slice(-3).join(' | ');
  return tail.length > MAX_REASON ? `…${tail.slice(-MAX_REASON)}` : tail;
}

export function createUnconfiguredIgnitions(settings: UnconfiguredIgnitionSettings): UnconfiguredIgnitions {
  const installer = () => settings.installer ?? onPath('openshift-install');

  const generator = (openshiftVersion: string): UnconfiguredIgnitionGenerator => {
    if (installer()) return 'openshift-install';
    if (settings.allowSimulated) return 'simulated';
    throw conflict(
      `no openshift-install is configured to make the unconfigured ignition of a disconnected ISO for OpenShift ${openshiftVersion}: ` +
        `set OPENSHIFT_INSTALL to the openshift-install of that release (or put it on PATH), or allow the SIMULATED generator with ALLOW_SIMULATED_INSTALLER=true`,
    );
  };

  async function real(binary: string, request: { directory: InstallerDirectory; openshiftVersion: string; pullSecret: string }): Promise<UnconfiguredIgnition> {
    const dir = mkdtempSync(path.join(tmpdir(), 'unconfigured-ignition-'));
    try {
      for (const [relative, contents] of Object.entries(request.directory)) {
        const target = path.join(dir, relative);
        mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
        writeFileSync(target, contents, { mode: 0o600 });
      }
      const version = await run(binary, ['version'], { timeout: 60_000 }).then(
        ({ stdout }) =>
          stdout
            .split('\n')[0]
            ?.replace(/^openshift-install\s*/, '')
            .trim() ?? '',
        () => '',
      );
      settings.log('info', `running ${binary} ${version} agent create unconfigured-ignition for OpenShift ${request.openshiftVersion}`);
      try {
        await run(binary, ['agent', 'create', 'unconfigured-ignition', '--dir', dir, '--log-level', 'warn'], {
          timeout: INSTALLER_TIMEOUT_MS,
          maxBuffer: 16 * 1024 * 1024,
        });
      } catch (error) {
        // execFile's failure carries what the installer wrote, and whether its timeout killed it.
        const failure = error instanceof Error ? error : new Error(String(error));
        const stderr = 'stderr' in failure && typeof failure.stderr === 'string' ? failure.stderr : '';
        const stdout = 'stdout' in failure && typeof failure.stdout === 'string' ? failure.stdout : '';
        const killed = 'killed' in failure && failure.killed === true;
        const why = installerReason(`${stderr}\n${stdout}`, request.pullSecret) || (killed ? 'it timed out' : failure.message);
        settings.log('warn', `openshift-install agent create unconfigured-ignition failed: ${why}`);
        throw conflict(`openshift-install ${version} agent create unconfigured-ignition failed for this infra-env: ${why}`);
      }
      const { UNCONFIGURED_IGNITION_FILE } = await ignitionFormat();
      return {
        ignition: readFileSync(path.join(dir, UNCONFIGURED_IGNITION_FILE), 'utf8'),
        generator: 'openshift-install',
        ...(version ? { installerVersion: version } : {}),
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  return {
    generator,
    async generate(request) {
      const binary = generator(request.openshiftVersion) === 'openshift-install' ? installer() : undefined;
      if (binary) return real(binary, request);
      settings.log(
        'warn',
        `SIMULATED unconfigured ignition for OpenShift ${request.openshiftVersion}: no openshift-install configured (OPENSHIFT_INSTALL), ALLOW_SIMULATED_INSTALLER=true; hosts booted with it do not install`,
      );
      const { simulatedUnconfiguredIgnition } = await ignitionFormat();
      return { ignition: simulatedUnconfiguredIgnition(request.directory), generator: 'simulated' };
    },
  };
}
