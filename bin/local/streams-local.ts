/**
 * The Lambda event source mappings of the table's stream, on one machine: reads DynamoDB Local's
 * stream through the real Streams API (@aws-sdk/client-dynamodb-streams) and invokes the mapped
 * function with the batches Lambda would send: filtered as the mapping's filter says, at most
 * `batchSize` records, retried from the first failed record the function reports
 * (ReportBatchItemFailures), split in halves on errors (bisect-on-error), and a record that still
 * fails is written to the on-failure destination (a JSON-lines file here, an SQS queue in AWS)
 * and passed. Positions are checkpointed on disk after each delivered batch, so a restart resumes
 * where delivery stopped: delivery is at least once, as in AWS.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
  type _Record as StreamRecord,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { FileReplacer, removeLeftoverTemporaries } from './replaced-files.js';
import type { StreamSpec } from '../../lib/catalogue.js';
import { backoffMs } from '../../lambdas/domain/core/backoff.js';
import { setTimeout as sleep } from 'node:timers/promises';

export interface StreamPollerOptions {
  client: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  tableName: string;
  mappings: StreamSpec[];
  invoke: (functionName: string, event: unknown) => Promise<unknown>;
  /** Where positions and failed records are kept. */
  directory: string;
  /** How long an idle poller waits before asking for records again (default: from 50 ms, growing to 250 ms while idle). */
  idlePollMs?: number;
  log?: (message: string) => void;
}

export interface StreamMappingStats {
  delivered: number;
  retried: number;
  failedToDestination: number;
  /** Age of the newest record delivered when it was delivered (Lambda's IteratorAge). */
  iteratorAgeMs: number;
}

const SHARD_REFRESH_MS = 10_000;
/** An idle stream is read again after this, then less often up to IDLE_POLL_MAX_MS (Lambda polls a shard 4 times a second). */
const IDLE_POLL_MS = 50;
const IDLE_POLL_MAX_MS = 250;
const MAX_RETRY_DELAY_MS = 2_000;
const RECORDS_PER_READ = 1_000;
/** Rounds read to the stream's end after which a waiter counts the stream drained though others keep writing. */
const DRAIN_ROUNDS = 3;

/** Each delivered batch as a JSON line in the file `ASSISTED_ACCESS_LOG` names (the API's access log), for reading latencies. */
const logBatch = process.env.ASSISTED_ACCESS_LOG
  ? (line: Record<string, unknown>) => appendFileSync(process.env.ASSISTED_ACCESS_LOG!, `${JSON.stringify(line)}\n`)
  : undefined;

/** Whether a value matches a Lambda event filter pattern (the subset the catalogue uses: values and prefixes). */
export function matchesFilter(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) {
    return pattern.some((allowed) => {
      if (allowed && typeof allowed === 'object' && 'prefix' in allowed)
        return typeof value === 'string' && value.startsWith(String((allowed as { prefix: unknown }).prefix));
      return allowed === value;
    });
  }
  if (pattern && typeof pattern === 'object') {
    if (!value || typeof value !== 'object') return false;
    return Object.entries(pattern).every(([name, nested]) => matchesFilter(nested, (value as Record<string, unknown>)[name]));
  }
  return pattern === value;
}

/** Bytes as base64 and dates as epoch seconds: the record as Lambda's event carries it. */
function lambdaShaped(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return Math.floor(value.getTime() / 1000);
  if (Array.isArray(value)) return value.map(lambdaShaped);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, nested]) => [name, lambdaShaped(nested)]));
  return value;
}

export function toLambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  return { ...(lambdaShaped(record) as DynamoDBRecord), eventSourceARN: streamArn };
}

interface Checkpoints {
  /** The last sequence number delivered, by shard. */
  positions: Record<string, string>;
  /** Shards read to their end. */
  finished: string[];
}

class MappingPoller {
  private stopped = false;
  private readonly checkpointFile: string;
  private readonly files = new FileReplacer((_file, error) =>
    this.options.log?.(`stream ${this.mapping.name}: could not save its checkpoints: ${error.message}`),
  );
  private readonly failureFile: string;
  private checkpoints: Checkpoints;
  private readonly iterators = new Map<string, string | undefined>();
  private shards: Shard[] = [];
  private shardsReadAt = 0;
  readonly stats: StreamMappingStats = { delivered: 0, retried: 0, failedToDestination: 0, iteratorAgeMs: 0 };
  private loop: Promise<void> | undefined;
  private paused = false;
  /** The round being read now, and waiters for the first empty round that starts after they asked. */
  private round: Promise<number> | undefined;
  private readonly drainWaiters: { since: number; roundsToEnd: number; resolve(): void }[] = [];
  private roundsStarted = 0;
  /** Rounds in a row that found nothing: the idle wait grows with them. */
  private idleRounds = 0;
  /** Whether the last round read every shard to its end (no shard had more than one read's worth). */
  private lastRoundReachedEnd = true;
  /** Records the last round delivered (those the mapping's filter kept). */
  private roundDelivered = 0;
  /** Ends the idle wait early: someone waits for the stream to be drained. */
  private wake: (() => void) | undefined;

  constructor(
    private readonly options: StreamPollerOptions,
    private readonly mapping: StreamSpec,
    private readonly streamArn: string,
  ) {
    const directory = path.join(options.directory, mapping.name);
    mkdirSync(directory, { recursive: true });
    this.checkpointFile = path.join(directory, 'checkpoints.json');
    removeLeftoverTemporaries(directory);
    this.failureFile = path.join(directory, 'failed-records.jsonl');
    const saved = existsSync(this.checkpointFile) ? (JSON.parse(readFileSync(this.checkpointFile, 'utf8')) as Checkpoints & { streamArn?: string }) : undefined;
    // Positions belong to one stream: a table made anew (or a stream re-enabled) starts from its beginning.
    this.checkpoints = saved && saved.streamArn === streamArn ? { positions: saved.positions, finished: saved.finished } : { positions: {}, finished: [] };
  }

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.files.close();
  }

  /** The file follows the checkpoints (see FileReplacer): after a kill, the last batches may be delivered again, as Lambda's stream mappings may. */
  private save(): void {
    this.files.replace(this.checkpointFile, () => JSON.stringify({ streamArn: this.streamArn, ...this.checkpoints }));
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.paused) {
        await sleep(this.options.idlePollMs ?? 50);
        continue;
      }
      let read = 0;
      const number = ++this.roundsStarted;
      try {
        this.round = this.pollOnce();
        read = await this.round;
      } catch (error) {
        read = -1;
        if (this.stopped) break;
        this.options.log?.(`stream ${this.mapping.name}: ${(error as Error).message}`);
        await sleep(500);
      } finally {
        this.round = undefined;
      }
      // A round that delivered nothing (it read only records the mapping leaves out, or none), or a
      // few that each read every shard to its end: under a steady stream of other writes, the
      // changes made before the waiter asked (and what their follow-ups wrote) have been delivered.
      if (read >= 0 && this.lastRoundReachedEnd) {
        for (const waiter of this.drainWaiters.filter((candidate) => candidate.since < number)) {
          waiter.roundsToEnd -= 1;
          if (this.roundDelivered > 0 && waiter.roundsToEnd > 0) continue;
          this.drainWaiters.splice(this.drainWaiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      this.idleRounds = read === 0 ? this.idleRounds + 1 : 0;
      if (read === 0 && !this.stopped && this.drainWaiters.length === 0) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          this.wake = undefined;
          resolve();
        },
        this.options.idlePollMs ?? Math.min(IDLE_POLL_MAX_MS, IDLE_POLL_MS * 2 ** Math.max(0, this.idleRounds - 1)),
      );
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  /** Resolves once a read that started after this call found nothing new: every change written before it is followed. */
  drained(): Promise<void> {
    // Paused, nothing is delivered: there is nothing to wait for.
    if (this.paused) return Promise.resolve();
    const drained = new Promise<void>((resolve) => this.drainWaiters.push({ since: this.roundsStarted, roundsToEnd: DRAIN_ROUNDS, resolve }));
    this.wake?.();
    return drained;
  }

  /** Stops delivering after the batch in flight (an event source mapping disabled). */
  async pause(): Promise<void> {
    this.paused = true;
    this.wake?.();
    await this.round?.catch(() => undefined);
  }

  /**
   * Delivers again, if paused. With `skipWritten`, from the stream's end, as a mapping made anew at LATEST:
   * the changes written while paused are never delivered.
   */
  async resume(options: { skipWritten?: boolean } = {}): Promise<void> {
    if (!this.paused) return;
    if (options.skipWritten) {
      this.shardsReadAt = 0;
      await this.refreshShards();
      for (const shard of this.shards) {
        if (this.checkpoints.finished.includes(shard.ShardId!)) continue;
        const latest = await this.options.streams.send(
          new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shard.ShardId!, ShardIteratorType: 'LATEST' }),
        );
        this.iterators.set(shard.ShardId!, latest.ShardIterator);
      }
    }
    this.paused = false;
  }

  private async refreshShards(): Promise<void> {
    if (this.shards.length > 0 && Date.now() - this.shardsReadAt < SHARD_REFRESH_MS) return;
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const page = await this.options.streams.send(
        new DescribeStreamCommand({ StreamArn: this.streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }),
      );
      shards.push(...(page.StreamDescription?.Shards ?? []));
      start = page.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    this.shards = shards;
    this.shardsReadAt = Date.now();
  }

  /** Reads each open shard once (a child only once its parent is read to its end); returns the records read. */
  private async pollOnce(): Promise<number> {
    await this.refreshShards();
    const finished = new Set(this.checkpoints.finished);
    const known = new Set(this.shards.map((shard) => shard.ShardId));
    let read = 0;
    this.lastRoundReachedEnd = true;
    this.roundDelivered = 0;
    for (const shard of this.shards) {
      const shardId = shard.ShardId!;
      if (finished.has(shardId)) continue;
      if (shard.ParentShardId && known.has(shard.ParentShardId) && !finished.has(shard.ParentShardId)) continue;
      read += await this.readShard(shardId);
      if (this.stopped) break;
    }
    return read;
  }

  private async iteratorFor(shardId: string): Promise<string | undefined> {
    if (this.iterators.has(shardId)) return this.iterators.get(shardId);
    const position = this.checkpoints.positions[shardId];
    const ask = (type: 'AFTER_SEQUENCE_NUMBER' | 'TRIM_HORIZON') =>
      this.options.streams.send(
        new GetShardIteratorCommand({
          StreamArn: this.streamArn,
          ShardId: shardId,
          ShardIteratorType: type,
          ...(type === 'AFTER_SEQUENCE_NUMBER' ? { SequenceNumber: position } : {}),
        }),
      );
    let answer: Awaited<ReturnType<typeof ask>>;
    try {
      answer = await ask(position ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON');
    } catch (error) {
      // The stream keeps 24 hours: a position older than that resumes at the oldest record kept.
      if (!(error instanceof TrimmedDataAccessException)) throw error;
      answer = await ask('TRIM_HORIZON');
    }
    this.iterators.set(shardId, answer.ShardIterator);
    return answer.ShardIterator;
  }

  private async readShard(shardId: string): Promise<number> {
    const iterator = await this.iteratorFor(shardId);
    if (!iterator) return this.finish(shardId);
    let page: GetRecordsCommandOutput;
    try {
      page = await this.options.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: RECORDS_PER_READ }));
    } catch (error) {
      if (error instanceof ExpiredIteratorException) {
        this.iterators.delete(shardId);
        return 0;
      }
      throw error;
    }
    const records = page.Records ?? [];
    if (records.length >= RECORDS_PER_READ) this.lastRoundReachedEnd = false;
    if (records.length > 0) {
      await this.deliver(records);
      this.checkpoints.positions[shardId] = records.at(-1)!.dynamodb!.SequenceNumber!;
      this.save();
    }
    this.iterators.set(shardId, page.NextShardIterator);
    if (!page.NextShardIterator) this.finish(shardId);
    return records.length;
  }

  private finish(shardId: string): number {
    if (!this.checkpoints.finished.includes(shardId)) {
      this.checkpoints.finished.push(shardId);
      this.save();
    }
    this.iterators.delete(shardId);
    return 0;
  }

  private async deliver(records: StreamRecord[]): Promise<void> {
    const wanted = records
      .map((record) => toLambdaRecord(record, this.streamArn))
      .filter((record) => !this.mapping.filter || matchesFilter(this.mapping.filter, record));
    this.roundDelivered += wanted.length;
    for (let start = 0; start < wanted.length && !this.stopped; start += this.mapping.batchSize) {
      await this.deliverBatch(wanted.slice(start, start + this.mapping.batchSize));
    }
  }

  /** Delivers a batch until every record is answered, or passed to the failure destination. */
  private async deliverBatch(batch: DynamoDBRecord[]): Promise<void> {
    let pending = batch;
    let attempts = 0;
    while (pending.length > 0) {
      let failedFrom: number;
      let reason: string;
      try {
        const startedAt = Date.now();
        const answer = (await this.options.invoke(this.mapping.function, { Records: pending })) as
          | { batchItemFailures?: { itemIdentifier: string }[] }
          | undefined;
        logBatch?.({
          at: new Date(startedAt).toISOString(),
          mapping: this.mapping.name,
          records: pending.length,
          ms: Date.now() - startedAt,
          lagMs: startedAt - 1000 * Number(pending[0]?.dynamodb?.ApproximateCreationDateTime ?? startedAt / 1000),
        });
        const failed = new Set((answer?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
        failedFrom = failed.size === 0 ? -1 : pending.findIndex((record) => failed.has(record.dynamodb?.SequenceNumber ?? ''));
        // An identifier that names no record of the batch fails the whole batch, as Lambda treats it.
        if (failed.size > 0 && failedFrom < 0) failedFrom = 0;
        reason = `the function reported ${failed.size} failed record(s)`;
      } catch (error) {
        failedFrom = 0;
        reason = `${(error as Error).name}: ${(error as Error).message}`;
      }
      const newest = pending.at(failedFrom < 0 ? -1 : Math.max(0, failedFrom - 1))?.dynamodb?.ApproximateCreationDateTime;
      if (failedFrom < 0) {
        this.stats.delivered += pending.length;
        if (newest !== undefined) this.stats.iteratorAgeMs = Math.max(0, Date.now() - newest * 1000);
        return;
      }
      this.stats.delivered += failedFrom;
      pending = pending.slice(failedFrom);
      attempts += 1;
      if (attempts <= this.mapping.maximumRetryAttempts) {
        this.stats.retried += 1;
        await sleep(backoffMs(attempts - 1, { baseMs: 100, capMs: MAX_RETRY_DELAY_MS }));
        continue;
      }
      if (this.mapping.bisectBatchOnFunctionError && pending.length > 1) {
        const half = Math.ceil(pending.length / 2);
        await this.deliverBatch(pending.slice(0, half));
        await this.deliverBatch(pending.slice(half));
        return;
      }
      this.toFailureDestination(pending, reason, attempts);
      return;
    }
  }

  private toFailureDestination(records: DynamoDBRecord[], reason: string, attempts: number): void {
    // As Lambda's on-failure destination: where the records are, not their content.
    const sequenceNumbers = records.map((record) => record.dynamodb?.SequenceNumber);
    appendFileSync(
      this.failureFile,
      `${JSON.stringify({ mapping: this.mapping.name, function: this.mapping.function, streamArn: this.streamArn, reason, attempts, firstSequenceNumber: sequenceNumbers[0], lastSequenceNumber: sequenceNumbers.at(-1), batchSize: records.length, at: new Date().toISOString() })}\n`,
    );
    this.stats.failedToDestination += records.length;
    this.options.log?.(`stream ${this.mapping.name}: ${records.length} record(s) passed to the failure destination after ${attempts} attempts (${reason})`);
  }
}

export interface StreamPoller {
  streamArn: string;
  stats(): Record<string, StreamMappingStats>;
  /** Every change written before the call has been delivered (and what its follow-ups wrote, in turn), or the time ran out. */
  drained(timeoutMs?: number): Promise<void>;
  pause(): Promise<void>;
  resume(options?: { skipWritten?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

/** Starts one poller per mapping on the table's stream (which must be enabled). */
export async function startStreamPollers(options: StreamPollerOptions): Promise<StreamPoller> {
  const table = await options.client.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = table.Table?.LatestStreamArn;
  if (!streamArn || !table.Table?.StreamSpecification?.StreamEnabled) throw new Error(`table ${options.tableName} has no stream enabled`);
  const pollers = options.mappings.map((mapping) => new MappingPoller(options, mapping, streamArn));
  for (const poller of pollers) poller.start();
  return {
    streamArn,
    stats: () => Object.fromEntries(options.mappings.map((mapping, index) => [mapping.name, { ...pollers[index]!.stats }])),
    drained: async (timeoutMs = 15_000) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the table's stream was not drained within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([Promise.all(pollers.map((poller) => poller.drained())), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    pause: async () => {
      await Promise.all(pollers.map((poller) => poller.pause()));
    },
    resume: async (resumeOptions = {}) => {
      await Promise.all(pollers.map((poller) => poller.resume(resumeOptions)));
    },
    stop: async () => {
      await Promise.all(pollers.map((poller) => poller.stop()));
    },
  };
}
