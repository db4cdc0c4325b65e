import type { Operation } from '../context.js';
import { v2ListClusters } from './v2ListClusters.js';

/** operationId → implementation; each lives in a file named after its operationId. */
export const operations: Record<string, Operation> = {
  v2ListClusters,
};
