import type { OperatorReport } from '../../../domain/install/installation-progress.js';
import { reportMonitoredOperatorStatus } from '../../../usecases/installation-progress.js';
import { requireAgent } from '../../../usecases/principal.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2ReportMonitoredOperatorStatus: Operation = async ({ api, event, principal, ports }) => {
  requireAgent(principal);
  await reportMonitoredOperatorStatus(ports, principal, pathParam(api, 'cluster_id'), (event.body ?? {}) as OperatorReport);
  return { statusCode: 200, headers: {}, body: '' };
};
