/**
 * A cluster's disk encryption: upstream's check of Tang servers, and the defaults a create or an
 * update leaves. Pure.
 */
import type { ClusterAttributes } from '../core/entities.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';

/**
 * Tang disk encryption names its servers, each a URL with a thumbprint (upstream's
 * ValidateDiskEncryptionParams).
 */
export function diskEncryptionProblem(encryption: unknown): string | undefined {
  if (!isJsonObject(encryption) || encryption.mode !== 'tang') return undefined;
  const servers = typeof encryption.tang_servers === 'string' ? encryption.tang_servers : '';
  if (servers === '') return "Setting Tang mode but tang_servers isn't set";
  let parsed: unknown;
  try {
    parsed = JSON.parse(servers);
  } catch (error) {
    return `Unable to unmarshal tang_servers: ${(error as Error).message}`;
  }
  if (parsed !== null && !Array.isArray(parsed)) return 'Unable to unmarshal tang_servers: tang_servers must be a JSON list of {"url", "thumbprint"}';
  for (const server of (parsed as unknown[] | null) ?? []) {
    const url = isJsonObject(server) && typeof server.url === 'string' ? server.url : '';
    if (!isRequestUri(url)) return `Tang URL isn't valid: parse "${url}": invalid URI for request`;
    if (!isJsonObject(server) || typeof server.thumbprint !== 'string' || server.thumbprint === '') return "Tang thumbprint isn't set";
  }
  return undefined;
}

/** Go's url.ParseRequestURI: an absolute URL or an absolute path. */
function isRequestUri(text: string): boolean {
  if (text.startsWith('/')) return true;
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text) && URL.canParse(text);
}

/** Disk encryption with upstream's defaults for what the request leaves out: off, with TPM v2. */
export function withDiskEncryptionDefaults(encryption: unknown): ClusterAttributes['disk_encryption'] {
  const given = isJsonObject(encryption) ? encryption : {};
  return { ...given, enable_on: (given.enable_on as 'none' | undefined) ?? 'none', mode: (given.mode as 'tpmv2' | undefined) ?? 'tpmv2' };
}

/** The stored disk encryption with an update's settings over it: enable_on and mode given empty take their defaults, empty Tang servers leave the stored ones. */
export function updatedDiskEncryption(stored: unknown, given: Record<string, unknown>): ClusterAttributes['disk_encryption'] {
  const next: Record<string, unknown> = { ...(isJsonObject(stored) ? stored : {}) };
  if (given.enable_on !== undefined && given.enable_on !== null) next.enable_on = given.enable_on || 'none';
  if (given.mode !== undefined && given.mode !== null) next.mode = given.mode || 'tpmv2';
  if (typeof given.tang_servers === 'string' && given.tang_servers !== '') next.tang_servers = given.tang_servers;
  return next as ClusterAttributes['disk_encryption'];
}
