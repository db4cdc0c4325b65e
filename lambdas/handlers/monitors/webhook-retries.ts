import { container } from '../../platform/container.js';
import { taskHandler } from '../../platform/middleware.js';
import { logger } from '../../platform/observability.js';
import { retryDueDeliveries } from '../../usecases/webhooks.js';

/** On a schedule: webhook deliveries whose retry is due are sent again, in each queue's order. */
export const handler = taskHandler(async (): Promise<{ queues: number }> => {
  const outcome = await retryDueDeliveries(container());
  if (outcome.queues > 0) logger.info('webhook retries', outcome);
  return outcome;
});
