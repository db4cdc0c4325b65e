import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { hostChangesOf } from '../../platform/stream-records.js';
import { container } from '../../platform/container.js';
import { taskHandler } from '../../platform/middleware.js';
import { logger } from '../../platform/observability.js';
import { followHostChanges } from '../../usecases/host-changes.js';

/**
 * The table's stream (a Lambda event source mapping in AWS, the local stream poller here). Reports
 * the changes whose follow-up failed, so that only those are delivered again (ReportBatchItemFailures).
 */
export const handler = taskHandler(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const started = Date.now();
  const changes = hostChangesOf(event.Records ?? []);
  const outcome = await followHostChanges(container(), changes, (cluster, error) => logger.error('cluster follow-up failed', { ...cluster, error }));
  logger.info('host changes followed', {
    records: event.Records?.length ?? 0,
    changes: changes.length,
    clusters: outcome.clusters,
    hostsRejudged: outcome.hostsRejudged,
    failed: outcome.failedChangeIds.length,
    ms: Date.now() - started,
  });
  return { batchItemFailures: outcome.failedChangeIds.map((itemIdentifier) => ({ itemIdentifier })) };
});
