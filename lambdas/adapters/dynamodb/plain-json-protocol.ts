/**
 * DynamoDB's item operations with their bodies written by JSON.stringify and read by JSON.parse.
 *
 * The SDK writes and reads each body by walking the operation's schema, member by member and
 * attribute value by attribute value: 14 % of an Api instance's CPU in the versus-upstream profile
 * (docs/performance.md, session 28), for bodies that are already JSON-shaped. The document client
 * has turned the items into attribute values by then, and DynamoDB's JSON names every member as the
 * SDK does, so the item operations below need only the binary attribute values converted (base64
 * on the wire, Uint8Array in the SDK). Everything else goes through the SDK's protocol unchanged:
 * headers, the endpoint, signing, retries and middleware around it, every error response, and every
 * other operation (table management reads timestamps from its answers).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';

/** Operations whose input and output hold attribute values, strings, numbers and booleans only. */
const PLAIN_OPERATIONS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
]);

interface OperationSchema {
  name: string;
}

interface SerialisedRequest {
  body?: unknown;
}

interface RawResponse {
  statusCode: number;
  headers: Record<string, string>;
  body?: unknown;
}

/** The members of the SDK's JSON-RPC protocol this wraps (@smithy/core's RpcProtocol). */
interface JsonRpcProtocol {
  serializeRequest(operation: OperationSchema, input: unknown, context: unknown): Promise<SerialisedRequest>;
  deserializeResponse(operation: OperationSchema, context: unknown, response: RawResponse): Promise<unknown>;
  deserializeMetadata(response: RawResponse): Record<string, unknown>;
}

interface SerdeContext {
  streamCollector(body: unknown): Promise<Uint8Array>;
}

const PLAIN_MARK = Symbol.for('assisted-cloud.plain-json-dynamodb');

/** A Uint8Array as DynamoDB's JSON carries a binary value. */
const base64Of = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/** As the SDK reads a binary value: a Uint8Array (not a Buffer) over the decoded bytes. */
function bytesOf(text: string): Uint8Array {
  const buffer = Buffer.from(text, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/**
 * For JSON.stringify: binary values as base64, and members left null or undefined out, as the SDK
 * writes them (a null inside a list stays: the SDK writes it too). The holder is read for the
 * original value because a Buffer has already been turned into {type, data} by its toJSON.
 */
function wireValue(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  if (original instanceof Uint8Array) return base64Of(original);
  if (value === null && !Array.isArray(this)) return undefined;
  return value;
}

/**
 * The request body of an item operation: what the SDK's schema walk writes, in one stringify. As
 * the SDK does, a transaction without an idempotency token gets one, so that the SDK's retries of
 * the same request are applied once.
 */
export function plainRequestBody(operation: string, input: unknown): string {
  const given = (input ?? {}) as Record<string, unknown>;
  const withToken = operation === 'TransactWriteItems' && given.ClientRequestToken == null ? { ...given, ClientRequestToken: randomUUID() } : given;
  return JSON.stringify(withToken, wireValue);
}

/**
 * Binary attribute values back to bytes, in place. In DynamoDB's answers to item operations only
 * an attribute value has a string member named B (and a string-array member named BS alone): an
 * item's attributes map to objects, never to strings.
 */
function decodeBinaries(value: unknown): void {
  if (Array.isArray(value)) {
    for (const entry of value) if (entry !== null && typeof entry === 'object') decodeBinaries(entry);
    return;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) {
    const member = object[key];
    if (key === 'B' && typeof member === 'string') object.B = bytesOf(member);
    else if (key === 'BS' && Array.isArray(member) && member.every((entry) => typeof entry === 'string')) object.BS = member.map(bytesOf);
    else if (member !== null && typeof member === 'object') decodeBinaries(member);
  }
}

/** The output of an item operation from its response text: what the SDK's schema walk reads. */
export function plainOutputOf(text: string): Record<string, unknown> {
  if (text.length === 0) return {};
  const output = JSON.parse(text) as Record<string, unknown>;
  // Most answers hold no binary value: their walk is skipped.
  if (text.includes('"B":') || text.includes('"BS":')) decodeBinaries(output);
  return output;
}

/**
 * Has `client`'s item operations write and read their bodies as plain JSON (see above); returns
 * the client. A client already so wrapped is left as it is.
 */
export function withPlainJsonBodies<Client extends DynamoDBClient>(client: Client): Client {
  const protocol = (client.config as unknown as { protocol: JsonRpcProtocol }).protocol;
  const marked = protocol as unknown as Record<symbol, boolean>;
  if (marked[PLAIN_MARK]) return client;
  marked[PLAIN_MARK] = true;
  const serializeBySchema = protocol.serializeRequest.bind(protocol);
  const deserializeBySchema = protocol.deserializeResponse.bind(protocol);
  protocol.serializeRequest = async (operation, input, context) => {
    if (!PLAIN_OPERATIONS.has(operation.name)) return serializeBySchema(operation, input, context);
    // The SDK's request for an empty input carries the endpoint, path and headers; the body is ours.
    const request = await serializeBySchema(operation, {}, context);
    request.body = plainRequestBody(operation.name, input);
    return request;
  };
  protocol.deserializeResponse = async (operation, context, response) => {
    if (!PLAIN_OPERATIONS.has(operation.name) || response.statusCode >= 300) return deserializeBySchema(operation, context, response);
    // As the SDK does before reading: header names in lower case (the metadata reads them so).
    for (const name of Object.keys(response.headers)) {
      const lower = name.toLowerCase();
      if (lower === name) continue;
      const value = response.headers[name]!;
      delete response.headers[name];
      response.headers[lower] = value;
    }
    const bytes =
      response.body instanceof Uint8Array ? response.body : response.body ? await (context as SerdeContext).streamCollector(response.body) : new Uint8Array();
    const output = plainOutputOf(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    output.$metadata = protocol.deserializeMetadata(response);
    return output;
  };
  return client;
}
