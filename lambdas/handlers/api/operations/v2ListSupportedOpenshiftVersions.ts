import { listOpenshiftVersions } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';
import { queryFlag, queryString } from '../params.js';

export const v2ListSupportedOpenshiftVersions: Operation<'v2ListSupportedOpenshiftVersions'> = async ({ api }) => {
  return json(200, listOpenshiftVersions({ version: queryString(api, 'version'), onlyLatest: queryFlag(api, 'only_latest') }));
};
