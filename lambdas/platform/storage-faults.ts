/**
 * What to tell a caller when a store failed on its own side ($fault "server" after the SDK's
 * retries). DynamoDB Local says only "InternalFailure" when its disk is full; where the runtime
 * names the directories its stores write to (STORAGE_DIRECTORIES, set by `npm start` only), a full
 * one is named, as /healthz names it. In AWS nothing is named and the answer is a plain 503.
 */
import { statfsSync } from 'node:fs';

/** Less free space than this is "full": a store's next page or log write would not fit. */
const FULL_BELOW_BYTES = 1024 * 1024;

export interface StorageFault {
  statusCode: 503 | 507;
  reason: string;
}

function isServerFault(error: unknown): boolean {
  return typeof error === 'object' && error !== null && '$fault' in error && error.$fault === 'server';
}

function fullDirectory(directories: readonly string[]): string | undefined {
  for (const directory of directories) {
    try {
      const { bavail, bsize } = statfsSync(directory);
      if (bavail * bsize < FULL_BELOW_BYTES) return directory;
    } catch {
      // A directory that cannot be read says nothing about space.
    }
  }
  return undefined;
}

export function storageFault(error: unknown, environment: NodeJS.ProcessEnv = process.env): StorageFault | undefined {
  if (!isServerFault(error)) return undefined;
  const directories = (environment.STORAGE_DIRECTORIES ?? '').split(':').filter(Boolean);
  const full = fullDirectory(directories);
  if (full) {
    return { statusCode: 507, reason: `The service cannot store this change: no space left on device in ${full}. Free some space; nothing was changed` };
  }
  return { statusCode: 503, reason: "The service's storage failed to take this request; nothing was changed: retry it shortly" };
}
