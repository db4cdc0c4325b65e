import { uploadIngressCert } from '../../../usecases/installation-progress.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** The body is the PEM as a JSON string (the controller's generated client sends it so). */
export const v2UploadClusterIngressCert: Operation<'v2UploadClusterIngressCert'> = async ({ api, body, principal, ports }) => {
  await uploadIngressCert(ports, principal, pathParam(api, 'cluster_id'), body);
  return { statusCode: 201, headers: {}, body: '' };
};
