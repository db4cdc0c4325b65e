import { contentDisposition } from '../../../domain/install/manifests.js';
import { downloadManifest } from '../../../usecases/manifests.js';
import type { Operation } from '../context.js';
import { pathParam, queryString } from '../params.js';

/** The raw file, named as upstream's file responder names it; the gateway decodes the base64 body. */
export const v2DownloadClusterManifest: Operation<'v2DownloadClusterManifest'> = async ({ api, principal, ports }) => {
  const file = await downloadManifest(ports, principal, pathParam(api, 'cluster_id'), {
    folder: queryString(api, 'folder'),
    fileName: queryString(api, 'file_name') ?? '',
  });
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/octet-stream', 'Content-Disposition': contentDisposition(file.fileName) },
    body: Buffer.from(file.content).toString('base64'),
    isBase64Encoded: true,
  };
};
