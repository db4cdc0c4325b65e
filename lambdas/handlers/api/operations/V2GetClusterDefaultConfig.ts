import { clusterDefaultConfig } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';

export const V2GetClusterDefaultConfig: Operation<'V2GetClusterDefaultConfig'> = async () => {
  return json(200, clusterDefaultConfig());
};
