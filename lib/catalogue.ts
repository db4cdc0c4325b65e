/** The data files under lambdas/ the stack is built from: only data and entry paths are read from there. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root: this file lives in <root>/lib/. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Shapes of the data files under lambdas/ (only data and entry paths are read from there). */
export interface FunctionSpec {
  name: string;
  entry: string;
  handler: string;
  kind: 'api' | 'task' | 'monitor' | 'stream' | 'websocket';
  description?: string;
}
export interface StateMachineSpec {
  name: string;
  definition: string;
  /**
   * ASL placeholder → what replaces it: the name of a function (its ARN), or `container:<Name>`
   * (task definition ARN), `containerCluster:<Name>` (ECS cluster ARN), `containerSubnets:<Name>` and
   * `containerSecurityGroups:<Name>` (JSON arrays of ids, substituted raw), `containerAssignPublicIp:<Name>`
   * (ENABLED when the task runs in public subnets, else DISABLED).
   */
  substitutions?: Record<string, string>;
}
export interface ScheduleSpec {
  name: string;
  /** Name of a function in the catalogue. */
  function: string;
  /** EventBridge Scheduler expression, e.g. rate(1 minute). */
  expression: string;
}
export interface ContainerSpec {
  name: string;
  entry: string;
  description?: string;
}
/** An event source mapping of the table's stream (see lambdas/functions.json). */
export interface StreamSpec {
  name: string;
  function: string;
  batchSize: number;
  maximumBatchingWindowSeconds?: number;
  maximumRetryAttempts: number;
  bisectBatchOnFunctionError: boolean;
  /** A Lambda filter pattern on the record (leaf arrays of values or `{ prefix }`); records that do not match are dropped. */
  filter?: Record<string, unknown>;
}
export interface Catalogue {
  functions: FunctionSpec[];
  streams?: StreamSpec[];
  stateMachines: StateMachineSpec[];
  schedules?: ScheduleSpec[];
  containers?: ContainerSpec[];
}
export interface TableDesign {
  partitionKey: string;
  sortKey: string;
  timeToLiveAttribute: string;
  /** What the table's stream carries of each change. */
  streamViewType?: 'NEW_AND_OLD_IMAGES' | 'NEW_IMAGE' | 'OLD_IMAGE' | 'KEYS_ONLY';
  /** An index with `nonKeyAttributes` projects only those (INCLUDE); the others project ALL. */
  globalSecondaryIndexes: { indexName: string; partitionKey: string; sortKey: string; nonKeyAttributes?: string[] }[];
}

function readJson<T>(relativePath: string): T {
  return JSON.parse(readFileSync(join(PROJECT_ROOT, relativePath), 'utf8')) as T;
}

export const loadCatalogue = (): Catalogue => readJson<Catalogue>('lambdas/functions.json');
export const loadTableDesign = (): TableDesign => readJson<TableDesign>('lambdas/adapters/dynamodb/table.json');
