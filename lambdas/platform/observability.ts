import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
// Original files and lines in stack traces, mapped when a trace is read (not at every cold start).
import './stack-traces.js';

const serviceName = 'assisted-cloud';

/** One logger and one metrics sink per process; handlers add their own keys per invocation. */
export const logger = new Logger({ serviceName });
export const metrics = new Metrics({ serviceName, namespace: 'AssistedCloud' });
