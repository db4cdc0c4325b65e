/**
 * The installer task's contract with the install workflow: the files it writes for an attempt,
 * and the report it writes last, whose presence says that every file before it is complete. Kept
 * apart from the workflow's use cases so the task's bundle carries only this.
 */
export const INSTALLER_REPORT = 'installer-report.json';
export const INSTALLER_OUTPUTS = ['bootstrap.ign', 'master.ign', 'worker.ign', 'metadata.json', 'kubeconfig-noingress', 'kubeadmin-password'] as const;

/** Each output's contents, as the installer (openshift-install or the SIMULATED one) made them. */
export type InstallerOutputs = Record<(typeof INSTALLER_OUTPUTS)[number], string>;

/** What the installer container leaves next to its outputs: who made them and how long it took. */
export interface InstallerReport {
  installer: 'openshift-install' | 'simulated';
  installerVersion?: string;
  seconds: number;
  files: string[];
}
