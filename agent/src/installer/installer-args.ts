/**
 * The coreos-installer arguments a user may add (`installer_args`, a JSON array in a string), checked
 * again here with the service's rule (contracts/installer-args.ts) before coreos-installer runs.
 */
import { installerArgsProblem } from '../../../contracts/installer-args.js';

export { ALLOWED_INSTALLER_FLAGS } from '../../../contracts/installer-args.js';

export type InstallerArgsResult = { readonly ok: true; readonly args: readonly string[] } | { readonly ok: false; readonly error: string };

export function validateInstallerArgs(args: readonly string[]): InstallerArgsResult {
  const problem = installerArgsProblem(args);
  return problem === undefined ? { ok: true, args } : { ok: false, error: problem };
}

/** Parses the JSON-array string of InstallCmdRequest.installer_args and validates it. Empty means none. */
export function parseInstallerArgs(raw: string | undefined): InstallerArgsResult {
  if (raw === undefined || raw.trim() === '') return { ok: true, args: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return { ok: false, error: `installer_args is not valid JSON: ${(error as Error).message}` };
  }
  if (!Array.isArray(parsed) || !parsed.every((item): item is string => typeof item === 'string')) {
    return { ok: false, error: 'installer_args must be a JSON array of strings' };
  }
  return validateInstallerArgs(parsed);
}
