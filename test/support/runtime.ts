import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dynamodbEndpoint } from './dynamodb-local.js';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../bin/local/runtime.js';

/** An embedded runtime on loopback using this test file's DynamoDB Local and a table of its own. */
/** Runtime log lines printed even without DEBUG_RUNTIME. */
const INVOCATION_TROUBLE = /invocation failed|crashed|stopped \(exit|failure destination/;

export async function testRuntime(options: RuntimeOptions = {}): Promise<{ runtime: Runtime; adminToken: string; close(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'assisted-test-'));
  const runtime = await startRuntime({
    port: 0,
    dnsPort: 0,
    dataDir,
    dynamodbEndpoint: await dynamodbEndpoint(),
    tableName: `t-${randomUUID()}`,
    // Tests read the world after each request's follow-ups; a test of the asynchronous flow turns it off.
    settleFollowUps: true,
    // The identity stand-in only where a test asks for it: it changes what the API trusts.
    identityStandIn: false,
    // DEBUG_RUNTIME=1 prints the runtime's log (instances, stream deliveries, workflow steps);
    // failed invocations and crashed instances are printed always, so a failure in CI says why.
    log: (message: string) => {
      if (process.env.DEBUG_RUNTIME) console.log(`[runtime ${new Date().toISOString()}] ${message}`);
      else if (INVOCATION_TROUBLE.test(message) && !message.includes('stopped with the runtime'))
        console.error(`[runtime ${new Date().toISOString()}] ${message.slice(0, 2_000)}`);
    },
    ...options,
  });
  return {
    runtime,
    adminToken: readFileSync(runtime.adminTokenFile, 'utf8').trim(),
    close: async () => {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
