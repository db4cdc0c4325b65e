/**
 * The local API's rate on a trivial authenticated GET (`GET /v2/clusters` with an API token, on
 * an organisation with no clusters) divided by DynamoDB Local's raw GetItem rate: the floor the
 * API stands on, since every authenticated request reads its token. Both measured in this run,
 * on the same DynamoDB Local, with the same concurrency.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { startRuntime } from '../bin/local/runtime.js';
import { closedLoop, describe } from './load.js';

export async function apiVsGetItem(options: { durationMs?: number; concurrency?: number } = {}): Promise<Record<string, number>> {
  const durationMs = options.durationMs ?? Number(process.env.BENCH_DURATION_MS ?? 10_000);
  const concurrency = options.concurrency ?? 16;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'assisted-bench-'));
  const runtime = await startRuntime({ port: 0, dnsPort: 0, dataDir });
  try {
    const token = readFileSync(runtime.adminTokenFile, 'utf8').trim();
    const [, orgId, tokenId] = token.split('.');
    const client = new DynamoDBClient({ endpoint: runtime.endpoints.dynamodb, region: 'us-east-1' });
    const key = { pk: { S: `ORG#${orgId}` }, sk: { S: `TOKEN#${tokenId}` } };
    const floor = await closedLoop(async () => !!(await client.send(new GetItemCommand({ TableName: 'assisted', Key: key, ConsistentRead: true }))).Item, {
      concurrency,
      durationMs,
      warmupMs: 2_000,
    });
    client.destroy();

    const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
    const url = new URL(`${runtime.url}/api/assisted-install/v2/clusters`);
    const get = () =>
      new Promise<boolean>((resolve) => {
        const request = http.get(url, { agent, headers: { Authorization: `Bearer ${token}` } }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode === 200));
        });
        request.on('error', () => resolve(false));
      });
    const api = await closedLoop(get, { concurrency, durationMs, warmupMs: 2_000 });
    agent.destroy();

    console.log(`DynamoDB Local GetItem (floor)        ${describe(floor)}`);
    console.log(`API GET /v2/clusters, authenticated   ${describe(api)}`);
    console.log(`ratio API / GetItem floor             ${(api.perSecond / floor.perSecond).toFixed(2)}`);
    return { floorPerSecond: floor.perSecond, apiPerSecond: api.perSecond, ratio: api.perSecond / floor.perSecond };
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
