import type { WebhookEndpointPolicy } from '../domain/events/webhooks.js';

/** One POST to a webhook endpoint: its status, or a thrown Error saying why there was none (refused address, timeout, connection). */
export interface WebhookSender {
  post(request: { url: string; headers: Record<string, string>; body: string; timeoutMs: number; policy: WebhookEndpointPolicy }): Promise<{ status: number }>;
}
