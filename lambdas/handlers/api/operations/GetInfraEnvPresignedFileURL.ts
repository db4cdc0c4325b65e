import { json } from '../../../platform/http.js';
import { presignedInfraEnvFileUrl } from '../../../usecases/infra-env-files.js';
import type { Operation } from '../context.js';
import { pathParam, queryString } from '../params.js';

export const GetInfraEnvPresignedFileURL: Operation<'GetInfraEnvPresignedFileURL'> = async ({ api, principal, ports }) => {
  return json(
    200,
    await presignedInfraEnvFileUrl(ports, principal, pathParam(api, 'infra_env_id'), {
      fileName: queryString(api, 'file_name') ?? '',
      ipxeScriptType: queryString(api, 'ipxe_script_type'),
    }),
  );
};
