import type { Operation } from '../context.js';
import { DownloadMinimalInitrd } from './DownloadMinimalInitrd.js';

/** Discovery image operations of the API, merged into the operations map by operations/index.ts. */
export const imageOperations: Record<string, Operation> = { DownloadMinimalInitrd };
