import { json } from '../../../platform/http.js';
import { presignedClusterFileUrl } from '../../../usecases/installation-files.js';
import type { Operation } from '../context.js';
import { pathParam, queryString } from '../params.js';

export const V2GetPresignedForClusterFiles: Operation<'V2GetPresignedForClusterFiles'> = async ({ api, principal, ports }) => {
  return json(
    200,
    await presignedClusterFileUrl(ports, principal, pathParam(api, 'cluster_id'), {
      fileName: queryString(api, 'file_name') ?? '',
      logsType: queryString(api, 'logs_type'),
      hostId: queryString(api, 'host_id'),
      additionalName: queryString(api, 'additional_name'),
    }),
  );
};
