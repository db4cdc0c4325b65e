/**
 * What requests cost DynamoDB: every command of an instrumented client asks for its consumed
 * capacity (ReturnConsumedCapacity TOTAL, which DynamoDB Local computes as DynamoDB does) and the
 * totals are kept, so a phase's units and calls per request can be read beside its rate. Units per
 * request say what the same code asks of DynamoDB itself, whatever DynamoDB Local's speed.
 */
import { DynamoDBClient, type ConsumedCapacity } from '@aws-sdk/client-dynamodb';

export interface CapacityTotals {
  calls: number;
  /** Of the calls, those that read (Get, Query, Scan, BatchGet, TransactGet); the rest write. */
  readCalls: number;
  readUnits: number;
  writeUnits: number;
}

export interface CapacityMeter {
  client: DynamoDBClient;
  totals(): CapacityTotals;
}

const CONSUMING_COMMANDS = /^(Get|Put|Update|Delete|Query|Scan|BatchGet|BatchWrite|TransactGet|TransactWrite)/;

const READING_COMMANDS = /^(Get|Query|Scan|BatchGet|TransactGet)/;

/** With TOTAL, DynamoDB reports one CapacityUnits per table: read units for reading commands, write units otherwise. */
function add(totals: CapacityTotals, consumed: ConsumedCapacity | ConsumedCapacity[] | undefined, command: string): void {
  for (const entry of [consumed ?? []].flat()) {
    if (READING_COMMANDS.test(command)) totals.readUnits += entry.CapacityUnits ?? 0;
    else totals.writeUnits += entry.CapacityUnits ?? 0;
  }
}

/** One call of a metered client: whether it read, the units it consumed and how long it took. */
export interface MeteredCall {
  /** The command's name (QueryCommand, BatchGetItemCommand, ...). */
  command: string;
  read: boolean;
  units: number;
  ms: number;
}

/** A DynamoDB client for `endpoint` whose every command's capacity is counted (and, with `observe`, reported call by call). */
export function meteredDynamoClient(endpoint: string, observe?: (call: MeteredCall) => void): CapacityMeter {
  const totals: CapacityTotals = { calls: 0, readCalls: 0, readUnits: 0, writeUnits: 0 };
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', maxAttempts: 8 });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      const input = args.input as { ReturnConsumedCapacity?: string };
      if (CONSUMING_COMMANDS.test(command)) input.ReturnConsumedCapacity = 'TOTAL';
      const started = performance.now();
      const result = await next(args);
      const read = READING_COMMANDS.test(command);
      totals.calls += 1;
      if (read) totals.readCalls += 1;
      const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
      add(totals, consumed, command);
      observe?.({ command, read, units: [consumed ?? []].flat().reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0), ms: performance.now() - started });
      return result;
    },
    { step: 'initialize', name: 'countConsumedCapacity' },
  );
  return { client, totals: () => ({ ...totals }) };
}

/** Units and calls per request between two readings of a meter. */
export function perRequest(before: CapacityTotals, after: CapacityTotals, requests: number): CapacityTotals {
  const n = Math.max(1, requests);
  return {
    calls: (after.calls - before.calls) / n,
    readCalls: (after.readCalls - before.readCalls) / n,
    readUnits: (after.readUnits - before.readUnits) / n,
    writeUnits: (after.writeUnits - before.writeUnits) / n,
  };
}

/**
 * The most requests per second DynamoDB Local could serve if it did nothing else, from its own
 * rates for one-item reads and conditional writes measured at the same concurrency: a request's
 * reads and writes take their share of each, one after the other.
 */
export function ceilingFromFloors(cost: CapacityTotals, floors: { readsPerSecond: number; writesPerSecond: number }): number {
  const writeCalls = cost.calls - cost.readCalls;
  const secondsPerRequest = cost.readCalls / floors.readsPerSecond + writeCalls / floors.writesPerSecond;
  return secondsPerRequest > 0 ? 1 / secondsPerRequest : Infinity;
}

export const describeCost = (cost: CapacityTotals) =>
  `${cost.calls.toFixed(1)} DynamoDB calls (${cost.readCalls.toFixed(1)} reads), ${cost.readUnits.toFixed(1)} RCU + ${cost.writeUnits.toFixed(1)} WCU per request`;
