import { json } from '../../../platform/http.js';
import { imageDownloadUrl } from '../../../usecases/infra-envs.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const GetInfraEnvDownloadURL: Operation<'GetInfraEnvDownloadURL'> = async ({ api, principal, ports }) => {
  return json(200, await imageDownloadUrl(ports, principal, pathParam(api, 'infra_env_id')));
};
