/**
 * The coreos-installer arguments a user may add to a host (`installer_args`): upstream's allow-list
 * and character rule, shared by the service, which refuses a bad list when it is set, and the agent,
 * which checks again before it runs coreos-installer. Anything starting with '-' must be one of the
 * allowed flags, and values may hold only a conservative set of characters (no spaces, no shell
 * metacharacters such as `&|<>\``), so nothing can smuggle another option or a second command.
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
 * No spaces: each value is one argv element.
 */
const ALLOWED_INSTALLER_VALUE = /^[A-Za-z0-9@!#$%*()_+,\-./:;<="'{}[\]]+$/;

/** Why upstream would refuse these installer arguments (its words), or undefined when it would take them. */
export function installerArgsProblem(args: readonly string[]): string | undefined {
  for (const arg of args) {
    if (arg.startsWith('-')) {
      if (!ALLOWED_INSTALLER_FLAGS.includes(arg)) {
        return `found unexpected flag ${arg} for installer - allowed flags are [${ALLOWED_INSTALLER_FLAGS.join(' ')}]`;
      }
      continue;
    }
    if (!ALLOWED_INSTALLER_VALUE.test(arg)) return `found unexpected chars in value ${arg} for installer`;
  }
  return undefined;
}
