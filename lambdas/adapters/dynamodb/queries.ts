import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Page, PageRequest } from '../../ports/store.js';
import { stripKeys, type Item } from './keys.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';

const MAX_PAGES = 1_000;

export interface IndexQuery {
  index?: string;
  pk: string;
  skPrefix?: string;
  /** Attribute paths to read (top-level names, or `parent.child`), instead of whole items. */
  projection?: readonly string[];
}

/** Reads every page of a query; listings served this way are bounded per parent. */
export async function queryAll<T>(doc: DynamoDBDocumentClient, table: string, query: IndexQuery, fromItem: (item: Item) => T): Promise<T[]> {
  const items: T[] = [];
  let start: Item | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await doc.send(new QueryCommand({ ...queryInput(table, query), ExclusiveStartKey: start }));
    for (const item of result.Items ?? []) items.push(fromItem(item));
    start = result.LastEvaluatedKey;
    if (!start) return items;
  }
  throw new Error(`query of ${query.pk} exceeded ${MAX_PAGES} pages`);
}

export async function queryPage<T>(
  doc: DynamoDBDocumentClient,
  table: string,
  query: IndexQuery,
  page: PageRequest = {},
  fromItem: (item: Item) => T = (item) => stripKeys<T>(item)!,
): Promise<Page<T>> {
  const result = await doc.send(
    new QueryCommand({
      ...queryInput(table, query),
      Limit: page.limit,
      ScanIndexForward: !page.newestFirst,
      ExclusiveStartKey: page.cursor ? decodeCursor(page.cursor) : undefined,
    }),
  );
  return {
    items: (result.Items ?? []).map(fromItem),
    next: result.LastEvaluatedKey ? encodeCursor(result.LastEvaluatedKey) : undefined,
  };
}

function queryInput(table: string, query: IndexQuery): QueryCommandInput {
  const partitionAttribute = query.index ? (query.index === 'active' ? 'activePk' : `${query.index}pk`) : 'pk';
  const sortAttribute = query.index ? (query.index === 'active' ? 'activeSk' : `${query.index}sk`) : 'sk';
  const names: Record<string, string> = query.skPrefix ? { '#pk': partitionAttribute, '#sk': sortAttribute } : { '#pk': partitionAttribute };
  let projection: string | undefined;
  if (query.projection) {
    const placeholders = new Map<string, string>();
    const placeholder = (name: string) => {
      let found = placeholders.get(name);
      if (!found) placeholders.set(name, (found = `#p${placeholders.size}`));
      names[found] = name;
      return found;
    };
    projection = query.projection.map((path) => path.split('.').map(placeholder).join('.')).join(', ');
  }
  return {
    TableName: table,
    IndexName: query.index,
    KeyConditionExpression: query.skPrefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: query.skPrefix ? { ':pk': query.pk, ':prefix': query.skPrefix } : { ':pk': query.pk },
    ...(projection ? { ProjectionExpression: projection } : {}),
  };
}

export function encodeCursor(key: Item): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor(cursor: string): Item {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (isJsonObject(parsed)) return Object.fromEntries(Object.entries(parsed));
  } catch {
    // fall through to the error below
  }
  throw new InvalidCursorError();
}

export class InvalidCursorError extends Error {
  constructor() {
    super('the page cursor is not one this service issued');
    this.name = 'InvalidCursorError';
  }
}
