/**
 * Webhook deliveries over HTTP(S): every address the endpoint's name resolves to is checked against
 * the endpoint policy at connection time (a name that resolved to a public address at registration
 * may resolve to a private one later), redirects are not followed, and the answer is not read past
 * its status.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { mayDeliverTo } from '../../domain/events/webhooks.js';
import type { WebhookSender } from '../../ports/webhook-sender.js';

export function createHttpWebhookSender(): WebhookSender {
  return {
    post: ({ url, headers, body, timeoutMs, policy }) =>
      new Promise((resolve, reject) => {
        const target = new URL(url);
        const host = target.hostname.replace(/^\[|\]$/g, '');
        if (isIP(host) && !mayDeliverTo(host, policy)) return reject(new Error(`address ${host} is not allowed for webhook endpoints`));
        const lookup = (
          hostname: string,
          options: object,
          callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
        ) => {
          dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
            if (error) return callback(error, []);
            const refused = addresses.find((address) => !mayDeliverTo(address.address, policy));
            if (refused)
              return callback(
                Object.assign(new Error(`${hostname} resolves to ${refused.address}, which is not allowed for webhook endpoints`), { code: 'EACCES' }),
                [],
              );
            if ((options as { all?: boolean }).all) return callback(null, addresses);
            return callback(null, addresses[0]!.address, addresses[0]!.family);
          });
        };
        const client = target.protocol === 'https:' ? https : http;
        const request = client.request(target, {
          method: 'POST',
          headers: {
            ...headers,
            'Content-Type': 'application/json',
            'Content-Length': String(Buffer.byteLength(body)),
            'User-Agent': 'assisted-cloud-webhooks/1',
          },
          lookup: lookup as never,
          timeout: timeoutMs,
        });
        request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        request.on('error', (error) => reject(error));
        request.on('response', (response) => {
          response.resume();
          resolve({ status: response.statusCode ?? 0 });
        });
        request.end(body);
      }),
  };
}
