import { container } from '../../platform/container.js';
import { taskHandler } from '../../platform/middleware.js';
import { logger } from '../../platform/observability.js';
import { monitorHosts } from '../../usecases/host-monitor.js';

/** Scheduled (EventBridge Scheduler in AWS, a timer locally). */
export const handler = taskHandler(async () => {
  const started = Date.now();
  const pass = await monitorHosts(container());
  logger.info('host monitor pass', { ...pass, ms: Date.now() - started });
  return pass;
});
