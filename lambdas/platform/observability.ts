import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

const serviceName = 'assisted-cloud';

/** One logger and one metrics sink per process; handlers add their own keys per invocation. */
export const logger = new Logger({ serviceName });
export const metrics = new Metrics({ serviceName, namespace: 'AssistedCloud' });
