/** Which hosts a cluster's disk encryption covers (upstream's `enable_on`: all, none, or masters/arbiters/workers, comma-separated). */
const ENCRYPTION_GROUP: Readonly<Record<string, string>> = { master: 'masters', bootstrap: 'masters', arbiter: 'arbiters', worker: 'workers' };

/** Whether disk encryption applies to a host of this (effective) role; auto-assign is covered only by "all". */
export function diskEncryptionCovers(enableOn: string | undefined, role: string | undefined): boolean {
  if (!enableOn || enableOn === 'none') return false;
  if (enableOn === 'all') return true;
  return enableOn.split(',').includes(ENCRYPTION_GROUP[role ?? ''] ?? '');
}
