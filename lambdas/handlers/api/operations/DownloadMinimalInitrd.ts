import { noContent } from '../../../platform/http.js';
import { minimalInitrd } from '../../../usecases/discovery-image.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** The minimal ISO's extra ramdisk (static network files, rootfs proxy), or 204 when it would be empty. */
export const DownloadMinimalInitrd: Operation<'DownloadMinimalInitrd'> = async ({ api, principal, ports }) => {
  const ramdisk = await minimalInitrd(ports, principal, pathParam(api, 'infra_env_id'));
  if (!ramdisk) return noContent();
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/octet-stream' },
    body: ramdisk.toString('base64'),
    isBase64Encoded: true,
  };
};
