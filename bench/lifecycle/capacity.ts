/**
 * What requests cost DynamoDB: every command of an instrumented client asks for its consumed
 * capacity (ReturnConsumedCapacity TOTAL, which DynamoDB Local computes as DynamoDB does) and the
 * totals are kept, so a phase's units and calls per request can be read beside its rate. Units per
 * request say what the same code asks of DynamoDB itself, whatever DynamoDB Local's speed.
 */
import { DynamoDBClient, type ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';

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

/** An attribute value as the low-level client carries it (one key: S, N, B, BOOL, NULL, M, L, SS, NS, BS). */
type WireValue = Record<string, unknown>;

/**
 * The size DynamoDB bills an attribute value at (its developer guide, "Item sizes"): strings and
 * binaries by their bytes, a number by its significant digits (1 byte per 2, plus 1), booleans and
 * nulls 1 byte, a map or list 3 bytes plus 1 per element and its elements (a map's names counted).
 */
function valueSizeBytes(value: WireValue): number {
  const [type, inner] = Object.entries(value)[0] ?? [];
  switch (type) {
    case 'S':
      return Buffer.byteLength(inner as string, 'utf8');
    case 'N':
      return numberSizeBytes(inner as string);
    case 'B':
      return (inner as Uint8Array).byteLength;
    case 'BOOL':
    case 'NULL':
      return 1;
    case 'SS':
      return (inner as string[]).reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
    case 'NS':
      return (inner as string[]).reduce((sum, text) => sum + numberSizeBytes(text), 0);
    case 'BS':
      return (inner as Uint8Array[]).reduce((sum, bytes) => sum + bytes.byteLength, 0);
    case 'L':
      return 3 + (inner as WireValue[]).reduce((sum, element) => sum + 1 + valueSizeBytes(element), 0);
    case 'M':
      return (
        3 +
        Object.entries(inner as Record<string, WireValue>).reduce(
          (sum, [name, element]) => sum + 1 + Buffer.byteLength(name, 'utf8') + valueSizeBytes(element),
          0,
        )
      );
    default:
      return 0;
  }
}

function numberSizeBytes(text: string): number {
  const digits = text.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

const WIRE_TYPES = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS']);
const isWireValue = (value: unknown): value is WireValue =>
  typeof value === 'object' && value !== null && !(value instanceof Uint8Array) && Object.keys(value).length === 1 && WIRE_TYPES.has(Object.keys(value)[0]!);

/**
 * An item's billed size: each attribute's name and value. The item as the low-level client reads
 * it, or as the document client hands it out (a client's middleware at its initialize step sees
 * the latter: the document client unmarshalls below it).
 */
export function itemSizeBytes(item: Record<string, unknown>): number {
  const wire = Object.values(item).every(isWireValue)
    ? (item as Record<string, WireValue>)
    : (marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: false }) as unknown as Record<string, WireValue>);
  return Object.entries(wire).reduce((sum, [name, value]) => sum + Buffer.byteLength(name, 'utf8') + valueSizeBytes(value), 0);
}

/**
 * What DynamoDB bills a BatchGetItem at: it reads each key as one GetItem, so each item found is
 * its size in 4 KB units, rounded up, and a key with no item still costs the minimum unit; halved
 * when eventually consistent (BatchGetItem's default). Keys left unprocessed are not read. DynamoDB
 * Local reports 0 for BatchGetItem, which made every listing's liveness reads free in the benches.
 */
export function batchGetReadUnits(
  input: { RequestItems?: Record<string, { Keys?: unknown[]; ConsistentRead?: boolean }> },
  output: { Responses?: Record<string, Record<string, unknown>[]>; UnprocessedKeys?: Record<string, { Keys?: unknown[] }> },
): number {
  let units = 0;
  for (const [table, request] of Object.entries(input.RequestItems ?? {})) {
    const share = request.ConsistentRead ? 1 : 0.5;
    const found = output.Responses?.[table] ?? [];
    const read = (request.Keys?.length ?? found.length) - (output.UnprocessedKeys?.[table]?.Keys?.length ?? 0);
    for (const item of found) units += Math.max(1, Math.ceil(itemSizeBytes(item) / 4096)) * share;
    units += Math.max(0, read - found.length) * share;
  }
  return units;
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
      const reported = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
      const reportedUnits = [reported ?? []].flat().reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
      // DynamoDB Local reports 0 for a BatchGetItem that read items: priced here by their sizes, as DynamoDB bills them.
      const consumed: ConsumedCapacity | ConsumedCapacity[] | undefined =
        command === 'BatchGetItemCommand' && reportedUnits === 0 ? { CapacityUnits: batchGetReadUnits(args.input as never, result.output as never) } : reported;
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
