/**
 * AWS Signature Version 4 as the local stand-ins check it: the request's canonical form is signed
 * again by the AWS SDK's own signer with the runtime's key pair, and the two signatures must match.
 * s3-local.ts checks S3's variants (header and presigned URL); this module holds what they share,
 * and the check for the JSON-protocol services (Step Functions), whose payload is always signed.
 */
import { createHash, createHmac, timingSafeEqual, type Hash, type Hmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Checksum, HttpRequest, SourceData } from '@smithy/types';

export const MAX_SKEW_MS = 15 * 60 * 1000;
export const SIGNATURE = /^[0-9a-f]{64}$/;

export interface KeyPair {
  accessKeyId: string;
  secretAccessKey: string;
}

/** SHA-256 and HMAC-SHA256 from node:crypto in the shape the Smithy signer takes. */
export class NodeSha256 implements Checksum {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256');
    const secret = this.secret;
    const key =
      typeof secret === 'string'
        ? Buffer.from(secret)
        : ArrayBuffer.isView(secret)
          ? Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength)
          : Buffer.from(secret);
    return createHmac('sha256', key);
  }
  update(chunk: Uint8Array): void {
    this.hash.update(chunk);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

/** 20130524T000000Z, as SigV4 writes times. */
export function parseAmzDate(value: string | undefined): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (!match) return undefined;
  const [, year, month, day, hours, minutes, seconds] = match.map(Number);
  return new Date(Date.UTC(year!, month! - 1, day!, hours, minutes, seconds));
}

/** A refusal in the JSON protocol's error shape (the status and `__type` AWS answers with). */
export class SignatureRefused extends Error {
  constructor(
    readonly status: 400 | 403,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Checks a JSON-protocol request's Authorization header (AWS4-HMAC-SHA256) against `keys`, for
 * `service` (the credential scope's service, e.g. "states"). Throws SignatureRefused when it fails.
 */
export async function verifyJsonProtocolSignature(request: IncomingMessage, body: Buffer, keys: KeyPair, service: string): Promise<void> {
  const authorization = request.headers.authorization;
  if (!authorization)
    throw new SignatureRefused(
      403,
      'MissingAuthenticationTokenException',
      "Missing Authentication Token: every call needs an AWS Signature Version 4 made with the local runtime's key pair",
    );
  const match = /^AWS4-HMAC-SHA256\s+(.*)$/.exec(authorization);
  const parts = new Map(
    (match?.[1] ?? '').split(',').map((part) => {
      const equals = part.indexOf('=');
      return [part.slice(0, equals).trim(), part.slice(equals + 1).trim()] as const;
    }),
  );
  const [accessKeyId, date, region, scopeService, terminator, ...rest] = (parts.get('Credential') ?? '').split('/');
  const signedHeaders = (parts.get('SignedHeaders') ?? '').split(';').filter(Boolean);
  const provided = parts.get('Signature') ?? '';
  if (
    !match ||
    !accessKeyId ||
    !date ||
    !region ||
    scopeService !== service ||
    terminator !== 'aws4_request' ||
    rest.length > 0 ||
    !signedHeaders.includes('host') ||
    !SIGNATURE.test(provided)
  ) {
    throw new SignatureRefused(
      400,
      'IncompleteSignatureException',
      `The Authorization header must be AWS4-HMAC-SHA256 with Credential=<key>/<date>/<region>/${service}/aws4_request, SignedHeaders including host, and Signature`,
    );
  }
  if (accessKeyId !== keys.accessKeyId)
    throw new SignatureRefused(400, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  const signingDate = parseAmzDate(String(request.headers['x-amz-date'] ?? ''));
  if (!signingDate) throw new SignatureRefused(400, 'IncompleteSignatureException', 'AWS authentication requires a valid x-amz-date header (yyyyMMddTHHmmssZ)');
  if (Math.abs(Date.now() - signingDate.getTime()) > MAX_SKEW_MS)
    throw new SignatureRefused(400, 'InvalidSignatureException', 'Signature expired: the request time is more than 15 minutes from the current time.');
  const url = request.url ?? '/';
  const queryStart = url.indexOf('?');
  const canonical: HttpRequest = {
    method: request.method ?? 'POST',
    protocol: 'http:',
    hostname: String(request.headers.host ?? ''),
    path: queryStart === -1 ? url : url.slice(0, queryStart),
    query: Object.fromEntries(new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1))),
    headers: {},
    body,
  };
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (value === undefined) throw new SignatureRefused(400, 'IncompleteSignatureException', `The signed header ${name} is missing from the request`);
    canonical.headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const signer = new SignatureV4({ credentials: keys, region, service, sha256: NodeSha256, applyChecksum: false });
  const signed = await signer.sign(canonical, { signingDate, signingRegion: region, signingService: service, signableHeaders: new Set(signedHeaders) });
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization))?.[1] ?? '';
  if (expected.length !== provided.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(provided))) {
    throw new SignatureRefused(
      400,
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    );
  }
}
