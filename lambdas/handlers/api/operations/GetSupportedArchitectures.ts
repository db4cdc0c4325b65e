import { architectureSupportLevels, requireOpenshiftVersionGiven } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';
import { queryString } from '../params.js';

export const GetSupportedArchitectures: Operation<'GetSupportedArchitectures'> = async ({ api }) => {
  const openshiftVersion = requireOpenshiftVersionGiven(queryString(api, 'openshift_version'));
  return json(200, { architectures: architectureSupportLevels(openshiftVersion) });
};
