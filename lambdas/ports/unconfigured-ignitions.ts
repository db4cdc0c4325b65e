import type { InstallerDirectory } from '../domain/image/disconnected-ignition.js';

/** Which generator made an unconfigured ignition. */
export type UnconfiguredIgnitionGenerator = 'openshift-install' | 'simulated';

export interface UnconfiguredIgnition {
  /** The ignition as the generator wrote it (Ignition JSON), before the interactive-UI sentinel. */
  ignition: string;
  generator: UnconfiguredIgnitionGenerator;
  /** The first line of `openshift-install version`, for a real one. */
  installerVersion?: string;
}

/**
 * Makes the agent-based installer's unconfigured ignition from its input directory: with a real
 * `openshift-install agent create unconfigured-ignition` where one is configured, else with the
 * SIMULATED generator where that is explicitly allowed, else refusing with a 409 that says what to
 * configure. Which one it will use is known before any input is written (`generator`), so images
 * can be named and fingerprinted by it.
 */
export interface UnconfiguredIgnitions {
  /** The generator a request for this release would use, or the refusal (a DomainError) if none may. */
  generator(openshiftVersion: string): UnconfiguredIgnitionGenerator;
  generate(request: { directory: InstallerDirectory; openshiftVersion: string; pullSecret: string }): Promise<UnconfiguredIgnition>;
}
