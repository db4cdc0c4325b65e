/**
 * The floor of a cold start (bench/bundles.ts builds it like a function): what every function of the
 * service loads at init whatever its code, a DynamoDB client as platform/container.ts makes it and
 * the logger and metrics of platform/observability.ts, and nothing of the service's own.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

const pooled = { maxSockets: 256, keepAlive: true };
const client = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: process.env.AWS_REGION, maxAttempts: 8, requestHandler: { httpAgent: pooled, httpsAgent: pooled } }),
);
const logger = new Logger({ serviceName: 'floor' });
const metrics = new Metrics({ serviceName: 'floor', namespace: 'Floor' });

export const handler = async () => ({ client: typeof client.send, logger: typeof logger.info, metrics: typeof metrics.addMetric });
