import { parseDownloadLogsType } from '../../../domain/install/logs.js';
import { contentDisposition } from '../../../domain/install/manifests.js';
import { downloadClusterLogs } from '../../../usecases/logs.js';
import type { Operation } from '../context.js';
import { pathParam, queryString } from '../params.js';

/** The archive as upstream's file responder sends it: octet-stream under an attachment name. */
export const V2DownloadClusterLogs: Operation<'V2DownloadClusterLogs'> = async ({ api, principal, ports }) => {
  const file = await downloadClusterLogs(ports, principal, pathParam(api, 'cluster_id'), {
    logsType: parseDownloadLogsType(queryString(api, 'logs_type')),
    hostId: queryString(api, 'host_id'),
  });
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/octet-stream', 'Content-Disposition': contentDisposition(file.fileName) },
    body: Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength).toString('base64'),
    isBase64Encoded: true,
  };
};
