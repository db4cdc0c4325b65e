/**
 * The coreos-installer arguments a user may add (`installer_args`, a JSON array in a string). Same
 * rule as upstream's validations.ValidateInstallerArgs: anything starting with '-' must be one of the
 * allowed flags, and values may hold only a conservative set of characters (no spaces, no shell
 * metacharacters such as `&|<>\``), so nothing can smuggle another coreos-installer option or a
 * second command.
 */

export const ALLOWED_INSTALLER_FLAGS: readonly string[] = [
  '--append-karg',
  '--delete-karg',
  '-n',
  '--copy-network',
  '--network-dir',
  '--save-partlabel',
  '--save-partindex',
  '--image-url',
  '--image-file',
];

/**
 * Upstream's value class is written `[A-Za-z0-9@!#$%*()_+-=//.,";':{}\[\]]`, where `+-=` is a range
 * ('+' to '='), so it also admits `,-./0-9:;<=`. Spelled out here without the accidental range trick.
 */
const ALLOWED_VALUE = /^[A-Za-z0-9@!#$%*()_+,\-./:;<=";'{}[\]]+$/;

export type InstallerArgsResult = { readonly ok: true; readonly args: readonly string[] } | { readonly ok: false; readonly error: string };

export function validateInstallerArgs(args: readonly string[]): InstallerArgsResult {
  for (const arg of args) {
    if (arg.startsWith('-')) {
      if (!ALLOWED_INSTALLER_FLAGS.includes(arg)) {
        return { ok: false, error: `found unexpected flag ${arg} for installer - allowed flags are [${ALLOWED_INSTALLER_FLAGS.join(' ')}]` };
      }
      continue;
    }
    if (!ALLOWED_VALUE.test(arg)) return { ok: false, error: `found unexpected chars in value ${JSON.stringify(arg)} for installer` };
  }
  return { ok: true, args };
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
