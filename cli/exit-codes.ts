/**
 * Exit codes scripts can rely on (docs/cli.md lists them). Kept apart from the commands so a test
 * or a wrapper can import them without pulling in the whole CLI.
 */
export const EXIT = {
  ok: 0,
  /** Bad arguments or options, or no login. */
  usage: 1,
  /** The API refused the request (4xx): fix the request, retrying will not help. */
  apiRefused: 2,
  /** The service failed or could not be reached (5xx, network): retrying may help. */
  transient: 3,
  /** `wait` (or a follow) ran out of time. */
  timeout: 4,
  /** Input files are invalid: ZTP manifests, params files. Nothing was registered. */
  invalidInput: 5,
  /** A download did not match the checksum the server gave. */
  checksumMismatch: 6,
  /** `wait` saw the cluster settle in a state other than the one asked for (error, cancelled...). */
  unexpectedState: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that ends the CLI with a given exit code and a message for people. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
  }
}
