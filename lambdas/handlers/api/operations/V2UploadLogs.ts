import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { badRequest, DomainError } from '../../../domain/core/errors.js';
import { parseUploadLogsType } from '../../../domain/install/logs.js';
import { messageOf, noContent } from '../../../platform/http.js';
import type { ApiEvent } from '../../../platform/middleware.js';
import { uploadLogs } from '../../../usecases/logs.js';
import type { Operation } from '../context.js';
import { pathParam, queryString } from '../params.js';

/**
 * The largest log archive taken in one upload. API Gateway (and its local stand-in) refuse bodies
 * over 10 MB and Lambda takes 6 MB before that, so in AWS this bound is reached only once uploads go
 * straight to S3; it still keeps one request from filling the function's memory.
 */
export const MAX_LOG_UPLOAD_BYTES = 100 * 1024 * 1024;
/** The form field upstream's agent and controller send the archive in. */
export const UPLOAD_FIELD = 'upfile';
/** Base64 characters decoded per piece fed to the parser: a multiple of 4, so every piece decodes alone. */
const BASE64_PIECE = 256 * 1024;

export interface MultipartBody {
  contentType: string;
  body: string | null;
  isBase64Encoded: boolean;
}

/** The body's bytes, decoded piece by piece so the whole decoded body never sits in memory beside the file. */
function* bodyPieces(request: MultipartBody): Generator<Buffer> {
  const body = request.body ?? '';
  if (!request.isBase64Encoded) {
    yield Buffer.from(body, 'utf8');
    return;
  }
  for (let start = 0; start < body.length; start += BASE64_PIECE) yield Buffer.from(body.slice(start, start + BASE64_PIECE), 'base64');
}

/**
 * Reads one file part of a multipart/form-data body, up to `maxBytes`. Other parts are skipped;
 * a second part of the same name is ignored. Missing part or malformed form: 400; larger: 413.
 */
export async function readMultipartFile(request: MultipartBody, field: string, maxBytes: number): Promise<Buffer> {
  let parser: busboy.Busboy;
  try {
    // busboy reports its limit on reaching it, so one byte more tells a file of exactly maxBytes from a larger one.
    parser = busboy({ headers: { 'content-type': request.contentType }, limits: { fileSize: maxBytes + 1, files: 16, fields: 64, parts: 128 } });
  } catch (error) {
    throw badRequest(`The upload is not a multipart/form-data body: ${messageOf(error)}`);
  }
  const chunks: Buffer[] = [];
  let found = false;
  let tooLarge = false;
  parser.on('file', (name, stream) => {
    // A form cut short fails the part and the parser alike; the parser's failure is the one reported.
    stream.on('error', () => undefined);
    if (name !== field || found) {
      stream.resume();
      return;
    }
    found = true;
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('limit', () => {
      tooLarge = true;
      chunks.length = 0;
    });
  });
  try {
    await pipeline(Readable.from(bodyPieces(request)), parser);
  } catch (error) {
    throw badRequest(`The multipart/form-data body is malformed: ${messageOf(error)}`);
  }
  if (tooLarge) throw new DomainError('payload-too-large', `The "${field}" file exceeds ${maxBytes} bytes`);
  if (!found) throw badRequest(`The request has no "${field}" file: send the log archive as multipart/form-data field "${field}"`);
  return Buffer.concat(chunks);
}

export function multipartBodyOf(event: ApiEvent): MultipartBody {
  return {
    contentType: String(event.headers['content-type'] ?? ''),
    // The middleware keeps a non-JSON body as it came: base64 text when the gateway encoded it.
    body: typeof event.body === 'string' ? event.body : null,
    isBase64Encoded: event.isBase64Encoded,
  };
}

/** Agents (logs_sender) and the installer controller upload here; upstream answers 204. */
export const V2UploadLogs: Operation<'V2UploadLogs'> = async ({ api, event, principal, ports }) => {
  await uploadLogs(ports, principal, {
    clusterId: pathParam(api, 'cluster_id'),
    logsType: parseUploadLogsType(queryString(api, 'logs_type')),
    hostId: queryString(api, 'host_id'),
    infraEnvId: queryString(api, 'infra_env_id'),
    readContent: () => readMultipartFile(multipartBodyOf(event), UPLOAD_FIELD, MAX_LOG_UPLOAD_BYTES),
  });
  return noContent();
};
