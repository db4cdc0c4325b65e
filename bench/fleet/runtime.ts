/** The service the fleet benches load: `npm start`'s runtime, in a work directory of the bench's own. */
import path from 'node:path';
import { startRuntime } from '../../bin/local/runtime.js';

/**
 * Every function warmed before the first call and no identity stand-in (the customers call with the
 * admin token). Its data is under `workDir`/data, the table too unless `dynamodbEndpoint` names a
 * DynamoDB Local started elsewhere (in memory, or behind a counting proxy).
 */
export function startFleetRuntime(workDir: string, dynamodbEndpoint?: string): ReturnType<typeof startRuntime> {
  return startRuntime({
    port: 0,
    dnsPort: 0,
    dataDir: path.join(workDir, 'data'),
    baseDomains: ['example.com'],
    warmAllFunctions: true,
    identityStandIn: false,
    ...(dynamodbEndpoint ? { dynamodbEndpoint } : {}),
  });
}
