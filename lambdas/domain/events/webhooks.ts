/**
 * Webhooks (docs/api.md, "Webhooks"): which endpoints an organisation may register, how a delivery
 * is signed, and when a failing delivery is tried again or given up. Pure: the sender and the store
 * are the use case's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Where endpoints may be: `loopback` (the embedded runtime's default: this machine only), `public`
 * (AWS: anything but private, loopback, link-local and other special ranges), `any` (a local
 * setting that allows other hosts, e.g. a LAN receiver).
 */
export type WebhookEndpointPolicy = 'loopback' | 'public' | 'any';

export function webhookEndpointPolicy(raw: string | undefined): WebhookEndpointPolicy {
  if (raw === undefined || raw === '') return 'public';
  if (raw === 'loopback' || raw === 'public' || raw === 'any') return raw;
  throw new Error(`WEBHOOK_ENDPOINTS must be loopback, public or any, not ${JSON.stringify(raw)}`);
}

function ipv4Parts(address: string): number[] | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return undefined;
  return parts.map(Number);
}

export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  const mapped = bare.startsWith('::ffff:') ? bare.slice(7) : bare;
  const v4 = ipv4Parts(mapped);
  if (v4) return v4[0] === 127;
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
}

/** Addresses a service in AWS must not be made to call: private, loopback, link-local (the instance metadata service), shared, unspecified, multicast, reserved. */
export function isNonPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  const mapped = bare.startsWith('::ffff:') ? bare.slice(7) : bare;
  const v4 = ipv4Parts(mapped);
  if (v4) {
    const [a, b] = v4 as [number, number, number, number];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 192 && b === 0) ||
      (a === 198 && (b === 18 || b === 19)) ||
      a >= 224
    );
  }
  if (!bare.includes(':')) return false;
  return (
    bare === '::' ||
    bare === '::1' ||
    /^f[cd]/.test(bare) ||
    /^fe[89ab]/.test(bare) ||
    bare.startsWith('ff') ||
    bare.startsWith('64:ff9b:') ||
    bare.startsWith('2001:db8:')
  );
}

const LOOPBACK_NAMES = new Set(['localhost']);

/** The reason an endpoint URL is refused under the policy, or undefined when it is acceptable (its resolved addresses are checked again at each delivery). */
export function webhookUrlProblem(raw: string, policy: WebhookEndpointPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `url must be an absolute http(s) URL, not ${JSON.stringify(raw.slice(0, 200))}`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'url must be http or https';
  if (url.username || url.password) return 'url must not carry credentials: deliveries are signed instead';
  if (url.hash) return 'url must have no fragment';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (policy === 'loopback') {
    if (!(LOOPBACK_NAMES.has(host.toLowerCase()) || isLoopbackAddress(host))) {
      return 'url must be on this machine (127.0.0.1, [::1] or localhost): the local service delivers to loopback only unless ASSISTED_WEBHOOKS_ALLOW_ANY_HOST=true';
    }
    return undefined;
  }
  if (policy === 'public') {
    if (url.protocol !== 'https:') return 'url must be https';
    if (LOOPBACK_NAMES.has(host.toLowerCase()) || isNonPublicAddress(host))
      return 'url must be a public address: private, loopback and link-local ranges are refused';
  }
  return undefined;
}

/** Whether a resolved address may be called under the policy (checked at every delivery: a name may resolve elsewhere later). */
export function mayDeliverTo(address: string, policy: WebhookEndpointPolicy): boolean {
  if (policy === 'loopback') return isLoopbackAddress(address);
  if (policy === 'public') return !isNonPublicAddress(address);
  return true;
}

/** `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` with the webhook's secret. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** What a receiver does: recompute the signature and compare in constant time. */
export function verifyWebhookSignature(secret: string, timestamp: string, body: string, signature: string): boolean {
  const expected = Buffer.from(webhookSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export interface WebhookRetrySettings {
  /** The first retry's delay; each next one doubles, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** How long after its first attempt a delivery is retried before it is dead-lettered (24 h). */
  windowMs: number;
}

export const DEFAULT_WEBHOOK_RETRIES: WebhookRetrySettings = { baseDelayMs: 30_000, maxDelayMs: 3_600_000, windowMs: 86_400_000 };

/** After a failed attempt: when to try again, or undefined when the window is over (dead-letter it). */
export function nextWebhookAttempt(settings: WebhookRetrySettings, firstAttemptAt: number, attempts: number, now: number): number | undefined {
  if (now - firstAttemptAt >= settings.windowMs) return undefined;
  const delay = Math.min(settings.baseDelayMs * 2 ** Math.max(0, attempts - 1), settings.maxDelayMs);
  return Math.min(now + delay, firstAttemptAt + settings.windowMs);
}

/** A delivery's answer counts as received for a 2xx; anything else (or no answer) is tried again. */
export const isDelivered = (status: number): boolean => status >= 200 && status < 300;

/** An endpoint an organisation registered. The secret signs deliveries; it is shown once, at creation. */
export interface Webhook {
  orgId: string;
  webhookId: string;
  url: string;
  events: string[];
  secret: string;
  createdAt: string;
  /** Who registered it (a token id or a user's email or id). */
  createdBy: string;
  version: number;
}

/** One event to one endpoint, in its resource's queue: sent in order, retried, dead-lettered. */
export interface WebhookDelivery {
  orgId: string;
  webhookId: string;
  deliveryId: string;
  /** The resource whose events are delivered in order (`clusters/<id>`, `hosts/<id>`). */
  resource: string;
  /** Its position in the resource's queue: the stream's sequence number of the change, zero-padded. */
  sequence: string;
  eventClass: string;
  /** The JSON body, as sent every time. */
  body: string;
  state: 'pending' | 'delivered' | 'dead';
  createdAt: string;
  attempts: number;
  firstAttemptAt?: string;
  nextAttemptAt?: string;
  lastAttemptAt?: string;
  lastError?: string;
  deliveredAt?: string;
}
