import { listReleaseSources } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';

export const v2ListReleaseSources: Operation<'v2ListReleaseSources'> = async () => {
  return json(200, listReleaseSources());
};
