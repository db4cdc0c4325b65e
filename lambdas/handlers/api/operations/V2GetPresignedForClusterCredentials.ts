import { json } from '../../../platform/http.js';
import { presignedClusterCredentialUrl } from '../../../usecases/installation-files.js';
import type { Operation } from '../context.js';
import { pathParam, queryString } from '../params.js';

export const V2GetPresignedForClusterCredentials: Operation<'V2GetPresignedForClusterCredentials'> = async ({ api, principal, ports }) =>
  json(200, await presignedClusterCredentialUrl(ports, principal, pathParam(api, 'cluster_id'), queryString(api, 'file_name') ?? ''));
