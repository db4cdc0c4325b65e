/**
 * One HTTP(S) GET with an optional extra CA (added to the system roots, as upstream does) and a hard timeout. node:http(s) rather than fetch so a
 * per-request CA (the API VIP check's `ca_certificate`) needs no extra library.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';

export interface HttpGetResult {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

export function httpGet(
  url: string,
  options: { headers?: Record<string, string>; ca?: string; timeoutMs: number; signal?: AbortSignal },
): Promise<HttpGetResult> {
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      reject(new Error(`invalid URL ${url}`));
      return;
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      reject(new Error(`unsupported URL scheme ${target.protocol}`));
      return;
    }
    const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(
      target,
      {
        method: 'GET',
        headers: options.headers,
        signal: options.signal,
        ...(options.ca && target.protocol === 'https:' ? { ca: [...rootCertificates, options.ca] } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            request.destroy(new Error(`response larger than ${MAX_BODY_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.setTimeout(options.timeoutMs, () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    request.on('error', reject);
    request.end();
  });
}
