import { reportMonitoredOperatorStatus } from '../../../usecases/installation-progress.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2ReportMonitoredOperatorStatus: Operation<'v2ReportMonitoredOperatorStatus'> = async ({ api, body, principal, ports }) => {
  await reportMonitoredOperatorStatus(ports, principal, pathParam(api, 'cluster_id'), body);
  return { statusCode: 200, headers: {}, body: '' };
};
