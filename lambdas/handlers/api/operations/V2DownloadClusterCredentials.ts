import { downloadClusterCredential } from '../../../usecases/installation-files.js';
import type { Operation } from '../context.js';
import { pathParam, queryString } from '../params.js';
import { fileResponse } from './V2DownloadClusterFiles.js';

/** Who may fetch which credential is decided per file by the use case. */
export const V2DownloadClusterCredentials: Operation<'V2DownloadClusterCredentials'> = async ({ api, principal, ports }) =>
  fileResponse(await downloadClusterCredential(ports, principal, pathParam(api, 'cluster_id'), queryString(api, 'file_name') ?? ''));
