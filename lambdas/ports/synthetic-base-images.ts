import type { BaseImageType } from '../domain/image/iso-synthetic.js';

/**
 * A source of SYNTHETIC base ISOs, for deployments that have no real RHCOS image to offer (the
 * embedded runtime on a fresh data directory): on first use it builds one, not bootable and named
 * SYNTHETIC wherever it shows, and imports it exactly as `npm run import-iso -- --synthetic` does.
 * Deployments in AWS have none: a missing base ISO stays a 409 that says what to import.
 */
export interface SyntheticBaseImages {
  /** Imports a SYNTHETIC base ISO for the release and type unless one has been imported by then. */
  provide(request: { version: string; arch: string; type: BaseImageType }): Promise<void>;
}
