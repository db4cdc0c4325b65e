/**
 * Image tokens: what makes an image URL work without a login. A token is signed with the
 * infra-env's own key; a deleted disconnected-iso infra-env is kept beside its images until the
 * URLs issued for it expire, and a presigned download lasts no longer than the token it came from.
 */
import { SignJWT, decodeJwt, errors, jwtVerify } from 'jose';
import type { InfraEnv } from '../domain/core/entities.js';
import { isJsonObject } from '../../contracts/json-shapes.js';
import { notFound, unauthorized } from '../domain/core/errors.js';
import { retainedInfraEnvObjectKey } from '../domain/core/object-keys.js';
import type { BlobStore } from '../ports/blobs.js';
import type { Store } from '../ports/store.js';

const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;
const MIN_PRESIGN_SECONDS = 60;

/** The image token: HS256 over the infra-env's own key, naming it and its organisation, expiring. */
export async function signImageToken(infraEnv: Pick<InfraEnv, 'infraEnvId' | 'orgId' | 'imageTokenKey'>, expires: Date): Promise<string> {
  return new SignJWT({ sub: infraEnv.infraEnvId, org_id: infraEnv.orgId })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(Math.floor(expires.getTime() / 1000))
    .sign(Buffer.from(infraEnv.imageTokenKey, 'base64url'));
}

/**
 * The infra-env an image token opens, with when the token expires. The organisation is read from
 * the token before it is verified (to find the key), then the signature and expiry are checked
 * against that infra-env's key; a token for another infra-env is a 404 for this one.
 */
export async function authorizeImageToken(
  deps: { store: Store; blobs?: BlobStore },
  infraEnvId: string,
  token: string | undefined,
): Promise<{ infraEnv: InfraEnv; expiresAt: Date }> {
  if (!token) throw unauthorized('image_token is required: request an image URL with GET .../downloads/image-url');
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwt(token);
  } catch {
    throw unauthorized('The image token is not valid');
  }
  if (claims.sub !== infraEnvId) throw notFound(`Infra-env ${infraEnvId} not found`);
  if (typeof claims.org_id !== 'string') throw unauthorized('The image token is not valid; request a new image URL');
  const infraEnv =
    (await deps.store.infraEnvs.get({ orgId: claims.org_id, infraEnvId })) ?? (deps.blobs && (await retainedInfraEnv(deps.blobs, claims.org_id, infraEnvId)));
  if (!infraEnv) throw notFound(`Infra-env ${infraEnvId} not found`);
  try {
    const { payload } = await jwtVerify(token, Buffer.from(infraEnv.imageTokenKey, 'base64url'), { algorithms: ['HS256'] });
    return { infraEnv, expiresAt: new Date((payload.exp ?? 0) * 1000) };
  } catch (error) {
    const expired = error instanceof errors.JWTExpired;
    throw unauthorized(expired ? 'The image token has expired; request a new image URL' : 'The image token is not valid');
  }
}

/**
 * A disconnected-iso infra-env being deleted leaves its record next to its images until every
 * image URL issued for it has expired, and the presigned downloads they led to with them: the
 * console deletes it right after starting the ISO's download, which may reach the image service
 * (or start composing) only after the deletion. Returns how long the images and the record must
 * stay. Nothing but authorizeImageToken reads the record, and only for a token signed by its key.
 */
export async function retainForImageUrls(deps: { blobs: BlobStore; config: { imageUrlTtlSeconds: number } }, infraEnv: InfraEnv): Promise<number> {
  await deps.blobs.put('images', retainedInfraEnvObjectKey(infraEnv.orgId, infraEnv.infraEnvId), JSON.stringify(infraEnv), 'application/json');
  return deps.config.imageUrlTtlSeconds + MIN_PRESIGN_SECONDS;
}

async function retainedInfraEnv(blobs: BlobStore, orgId: string, infraEnvId: string): Promise<InfraEnv | undefined> {
  const bytes = await blobs.get('images', retainedInfraEnvObjectKey(orgId, infraEnvId));
  if (!bytes) return undefined;
  const retained: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
  if (!isRetainedInfraEnv(retained)) throw new Error(`the infra-env ${infraEnvId} retained for image URLs is not an infra-env record`);
  return retained;
}

/** What retainForImageUrls wrote: an infra-env record, with the fields image URLs are authorized and built from. */
function isRetainedInfraEnv(value: unknown): value is InfraEnv {
  return (
    isJsonObject(value) &&
    typeof value.version === 'number' &&
    ['orgId', 'infraEnvId', 'name', 'createdAt', 'updatedAt', 'pullSecret', 'imageTokenKey'].every((field) => typeof value[field] === 'string') &&
    (value.clusterId === undefined || typeof value.clusterId === 'string') &&
    (value.agentTokenEpoch === undefined || typeof value.agentTokenEpoch === 'number') &&
    isJsonObject(value.attributes)
  );
}

export function presignSeconds(expiresAt: Date, now: Date): number {
  return Math.min(MAX_PRESIGN_SECONDS, Math.max(MIN_PRESIGN_SECONDS, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)));
}
