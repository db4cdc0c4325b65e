import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';

/**
 * Operator bundles (upstream's curated sets such as "virtualization") are not offered: operators
 * are chosen one by one. An empty list is the truthful answer, and the console shows none.
 */
export const V2ListBundles: Operation = async () => json(200, []);
