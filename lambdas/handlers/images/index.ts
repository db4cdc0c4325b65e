/**
 * The image service (upstream's assisted-image-service paths under /api/assisted-images): signed
 * discovery ISO downloads, the iPXE initrd and the boot artifacts. A separate function from the
 * API: it answers with redirects to presigned S3 GETs of objects composed in S3, so the bytes of
 * an image never pass through a Lambda.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { DomainError, badRequest } from '../../domain/core/errors.js';
import { contentDisposition } from '../../domain/install/manifests.js';
import { container } from '../../platform/container.js';
import { errorResponse } from '../../platform/http.js';
import { apiHandler, type ApiEvent } from '../../platform/middleware.js';
import {
  BOOT_ARTIFACTS,
  IMAGE_SERVICE_PATH,
  IMAGE_TYPES,
  authorizeImageToken,
  bootArtifact,
  ensureDiscoveryImage,
  ensurePxeInitrd,
  imageReleaseOf,
  isImageType,
  presignSeconds,
  type BootArtifact,
  type ComposedImage,
} from '../../usecases/discovery-image.js';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const IMAGE_ROUTE = new RegExp(`^${IMAGE_SERVICE_PATH}/images/(${UUID})$`);
const PXE_INITRD_ROUTE = new RegExp(`^${IMAGE_SERVICE_PATH}/images/(${UUID})/pxe-initrd$`);
const BOOT_ARTIFACT_ROUTE = new RegExp(`^${IMAGE_SERVICE_PATH}/boot-artifacts/([a-z]+)$`);
/** Boot artifacts are the same for everyone; a short presigned lifetime is enough to start the download. */
const BOOT_ARTIFACT_PRESIGN_SECONDS = 3600;

const VERSION = /^\d+\.\d+$/;
const ARCH = /^[a-z0-9_]{1,16}$/;

function query(event: ApiEvent, name: string): string | undefined {
  const value = event.queryStringParameters?.[name];
  return value === undefined || value === '' ? undefined : value;
}

/** Version and architecture from the URL (as upstream's image service takes them), else the infra-env's. */
function release(event: ApiEvent, fallback?: { version: string; arch: string }): { version: string; arch: string } {
  const version = query(event, 'version') ?? fallback?.version;
  const arch = query(event, 'arch') ?? fallback?.arch;
  if (!version || !VERSION.test(version)) throw badRequest(`version must be an OpenShift minor version such as 4.18, not "${version ?? ''}"`);
  if (!arch || !ARCH.test(arch)) throw badRequest(`arch must be a CPU architecture such as x86_64, not "${arch ?? ''}"`);
  return { version, arch };
}

async function answer(
  method: string,
  object: { key: string; size: number; fileName: string; synthetic?: boolean },
  contentType: string,
  presignFor: number,
): Promise<APIGatewayProxyResult> {
  const headers: Record<string, string> = {
    'Cache-Control': 'no-store',
    'Content-Disposition': contentDisposition(object.fileName),
    ...(object.synthetic ? { 'X-Assisted-Base-Image': 'SYNTHETIC (not RHCOS, does not boot)' } : {}),
  };
  if (method === 'HEAD') {
    return { statusCode: 200, headers: { ...headers, 'Content-Type': contentType, 'Content-Length': String(object.size) }, body: '' };
  }
  const location = await container().blobs.presignGet('images', object.key, presignFor, { contentDisposition: contentDisposition(object.fileName) });
  return { statusCode: 302, headers: { ...headers, Location: location }, body: '' };
}

const isBootArtifact = (name: string): name is BootArtifact => BOOT_ARTIFACTS.some((artifact) => artifact === name);

async function route(event: ApiEvent): Promise<APIGatewayProxyResult> {
  const ports = container();
  const method = event.httpMethod.toUpperCase();
  const path = event.path.replace(/\/+$/, '');
  const image = IMAGE_ROUTE.exec(path);
  const pxe = PXE_INITRD_ROUTE.exec(path);
  const artifact = BOOT_ARTIFACT_ROUTE.exec(path);
  if (!image && !pxe && !artifact) return errorResponse(404, `No image service route serves ${method} ${event.path}`);
  if (method !== 'GET' && method !== 'HEAD') return errorResponse(405, `${method} is not allowed on ${event.path}`);

  if (artifact) {
    const name = artifact[1]!;
    if (!isBootArtifact(name)) return errorResponse(404, `No boot artifact named ${name}; there are ${BOOT_ARTIFACTS.join(', ')}`);
    const { version, arch } = release(event);
    const found = await bootArtifact(ports, name, version, arch);
    return answer(method, { ...found, fileName: name }, 'application/octet-stream', BOOT_ARTIFACT_PRESIGN_SECONDS);
  }

  const infraEnvId = (image ?? pxe)![1]!;
  const { infraEnv, expiresAt } = await authorizeImageToken(ports, infraEnvId, query(event, 'image_token'));
  const presignFor = presignSeconds(expiresAt, ports.clock.now());
  const target = release(event, imageReleaseOf(infraEnv));
  let composed: ComposedImage;
  if (pxe) {
    composed = await ensurePxeInitrd(ports, infraEnv, target);
    return answer(method, composed, 'application/octet-stream', presignFor);
  }
  const type = query(event, 'type') ?? (infraEnv.attributes.type as string | undefined) ?? 'full-iso';
  if (!isImageType(type)) throw new DomainError('bad-request', `type must be ${IMAGE_TYPES.join(', ')}, not "${type}"`);
  composed = await ensureDiscoveryImage(ports, infraEnv, { type, ...target });
  return answer(method, composed, 'application/x-iso9660-image', presignFor);
}

export const handler = apiHandler(async (event) => route(event));
