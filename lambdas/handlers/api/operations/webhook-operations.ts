import { json, noContent } from '../../../platform/http.js';
import { createWebhook, deleteWebhook, deliveryView, listDeliveries, listWebhooks, webhookView } from '../../../usecases/webhooks.js';
import type { OperationHandlers } from '../context.js';
import { pathParam, queryString } from '../params.js';

/** The webhooks operations (our extension), merged into the operations map by operations/index.ts. */
export const webhookOperations = {
  ListWebhooks: async ({ principal, ports }) => json(200, (await listWebhooks(ports, principal)).map(webhookView)),
  CreateWebhook: async ({ body, principal, ports }) => {
    const { webhook } = await createWebhook(ports, principal, { url: body.url, events: body.events });
    return json(201, { ...webhookView(webhook), secret: webhook.secret });
  },
  DeleteWebhook: async ({ api, principal, ports }) => {
    await deleteWebhook(ports, principal, pathParam(api, 'webhook_id'));
    return noContent();
  },
  ListWebhookDeliveries: async ({ api, principal, ports }) => {
    const limit = queryString(api, 'limit');
    const cursor = queryString(api, 'cursor');
    const page = await listDeliveries(ports, principal, pathParam(api, 'webhook_id'), {
      ...(limit ? { limit: Number(limit) } : {}),
      ...(cursor ? { cursor } : {}),
    });
    return json(200, { deliveries: page.items.map(deliveryView), ...(page.next ? { next_cursor: page.next } : {}) });
  },
} satisfies Partial<OperationHandlers>;
