import { reportMonitoredOperatorStatus } from '../../../usecases/installation-progress.js';
import { requireAgent } from '../../../usecases/principal.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2ReportMonitoredOperatorStatus: Operation<'v2ReportMonitoredOperatorStatus'> = async ({ api, body, principal, ports }) => {
  requireAgent(principal);
  await reportMonitoredOperatorStatus(ports, principal, pathParam(api, 'cluster_id'), body);
  return { statusCode: 200, headers: {}, body: '' };
};
