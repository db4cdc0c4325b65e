import { downloadHostIgnition } from '../../../usecases/installation-files.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';
import { fileResponse } from './V2DownloadClusterFiles.js';

/** Note the singular `infra-env` in this one path, as upstream's. */
export const v2DownloadHostIgnition: Operation<'v2DownloadHostIgnition'> = async ({ api, principal, ports }) => {
  return fileResponse(await downloadHostIgnition(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id')));
};
