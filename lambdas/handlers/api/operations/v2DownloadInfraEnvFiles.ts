import { contentDisposition } from '../../../domain/install/manifests.js';
import { downloadInfraEnvFile } from '../../../usecases/infra-env-files.js';
import type { Operation } from '../context.js';
import { pathParam, queryString } from '../params.js';

/**
 * The file as upstream's file responder sends it: octet-stream, an attachment name and the
 * infra-env's modification time (the image service dates the images it builds with it).
 */
export const v2DownloadInfraEnvFiles: Operation<'v2DownloadInfraEnvFiles'> = async ({ api, principal, ports }) => {
  const file = await downloadInfraEnvFile(ports, principal, pathParam(api, 'infra_env_id'), {
    fileName: queryString(api, 'file_name') ?? '',
    mac: queryString(api, 'mac'),
    ipxeScriptType: queryString(api, 'ipxe_script_type'),
    discoveryIsoType: queryString(api, 'discovery_iso_type'),
  });
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': contentDisposition(file.fileName),
      'Last-Modified': new Date(file.lastModified).toUTCString(),
    },
    body: file.content.toString('base64'),
    isBase64Encoded: true,
  };
};
