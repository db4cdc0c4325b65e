import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { liveChangesOf } from '../../platform/stream-records.js';
import { container } from '../../platform/container.js';
import { taskHandler } from '../../platform/middleware.js';
import { logger } from '../../platform/observability.js';
import { fanOut } from '../../usecases/live.js';
import { followForWebhooks } from '../../usecases/webhooks.js';

/**
 * The table's stream for those who follow changes live: WebSocket subscribers (PostToConnection,
 * dropping connections found gone), webhook deliveries and the event bus.
 * A batch whose deliveries could not be queued fails whole and is delivered again: deliveries are
 * keyed by their record, so what was queued the first time is not queued twice.
 */
export const handler = taskHandler(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const started = Date.now();
  const changes = liveChangesOf(event.Records ?? []);
  const ports = container();
  // Subscribers first: a slow webhook endpoint must not hold the console's refresh.
  const live = ports.liveConnections
    ? await fanOut({ ...ports, connections: ports.liveConnections, caps: ports.config.live.caps }, changes)
    : { sent: 0, dropped: 0 };
  const outcome = await followForWebhooks(ports, changes);
  logger.info('live changes followed', { records: event.Records?.length ?? 0, changes: changes.length, ...outcome, ...live, ms: Date.now() - started });
  return { batchItemFailures: [] };
});
