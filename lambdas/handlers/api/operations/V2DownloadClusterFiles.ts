import type { APIGatewayProxyResult } from 'aws-lambda';
import { contentDisposition } from '../../../domain/install/manifests.js';
import { downloadClusterFile, type DownloadedFile } from '../../../usecases/installation-files.js';
import type { Operation } from '../context.js';
import { pathParam, queryString } from '../params.js';

/** A download as upstream's file responder sends it (also for credentials and host ignition): octet-stream, named as an attachment. */
export function fileResponse(file: DownloadedFile): APIGatewayProxyResult {
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/octet-stream', 'Content-Disposition': contentDisposition(file.fileName) },
    body: Buffer.from(file.content).toString('base64'),
    isBase64Encoded: true,
  };
}

export const V2DownloadClusterFiles: Operation<'V2DownloadClusterFiles'> = async ({ api, principal, ports }) => {
  return fileResponse(await downloadClusterFile(ports, principal, pathParam(api, 'cluster_id'), queryString(api, 'file_name') ?? ''));
};
