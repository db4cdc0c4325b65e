/**
 * The store's document client: lib-dynamodb's commands (PutCommand, QueryCommand...), their items
 * converted to and from attribute values as lib-dynamodb converts them, sent as the plain client's
 * commands.
 *
 * lib-dynamodb's own client builds each call's middleware anew: it adds its two converting steps
 * to the command's stack, copies the client's stack into it twice and sorts the result, on every
 * call (4 % of an Api instance's CPU in the session 28 profile, more in garbage). A plain client
 * made with `cacheMiddleware: true` builds the handler of each kind of command once and keeps it;
 * lib-dynamodb refuses such a client, so the conversion is done here, around it, by the keys each
 * lib-dynamodb command declares (its inputKeyNodes and outputKeyNodes). With a client without that
 * setting (tests', the benches' metering clients) each call builds its middleware as before.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * Where a lib-dynamodb command holds items, as it declares them: null is the value itself; `{}`
 * or `[]` every entry of the object or list; `{'*': nodes}` every entry, by `nodes`; any other
 * object the named members, each by its own nodes.
 */
type KeyNodes = null | readonly unknown[] | { readonly [member: string]: KeyNodes };

interface DocumentCommand {
  input: object;
  inputKeyNodes: KeyNodes;
  outputKeyNodes: KeyNodes;
  clientCommand: { input: object };
}

type Convert = (value: unknown) => unknown;

/** The options lib-dynamodb converts with, given the store's (documentClient in store.ts). */
const MARSHALL_OPTIONS = { removeUndefinedValues: true, convertClassInstanceToMap: false, convertTopLevelContainer: true } as const;
const UNMARSHALL_OPTIONS = { convertWithoutMapWrapper: true } as const;

const toAttributeValue: Convert = (value) => marshall(value as never, MARSHALL_OPTIONS);
const fromAttributeValue: Convert = (value) => unmarshall(value as never, UNMARSHALL_OPTIONS);

/**
 * Each entry of a list or object by `convert`, as lib-dynamodb does: functions left out, an
 * undefined entry not converted (it stays in a list, and is left out of an object).
 */
function eachEntry(value: unknown, convert: Convert): unknown {
  const convertDefined = (entry: unknown) => (entry === undefined ? undefined : convert(entry));
  if (Array.isArray(value)) return value.filter((entry) => typeof entry !== 'function').map(convertDefined);
  const converted: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value as object)) {
    if (typeof entry === 'function') continue;
    const result = convertDefined(entry);
    if (result !== undefined) converted[key] = result;
  }
  return converted;
}

/** `value` with the items `nodes` names in it converted by `convert`; what else it holds is copied as it is. */
export function convertAt(value: unknown, nodes: KeyNodes, convert: Convert): unknown {
  if (value === undefined) return undefined;
  if (nodes === null) return convert(value);
  const names = Object.keys(nodes);
  if (names.length === 0) return eachEntry(value, convert);
  if (names.length === 1 && names[0] === '*') {
    const next = (nodes as Record<string, KeyNodes>)['*']!;
    const converted: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
    for (const [key, entry] of Object.entries(value as object)) {
      if (typeof entry !== 'function') (converted as Record<string, unknown>)[key] = convertAt(entry, next, convert);
    }
    return converted;
  }
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value)
    ? value.filter((entry) => typeof entry !== 'function')
    : Object.fromEntries(Object.entries(value as object).filter(([, entry]) => typeof entry !== 'function'));
  for (const [name, inner] of Object.entries(nodes as Record<string, KeyNodes>)) {
    const member = (value as Record<string, unknown>)[name];
    if (typeof member === 'function') continue;
    const converted = convertAt(member, inner, convert);
    if (converted !== undefined && typeof converted !== 'function') (copy as Record<string, unknown>)[name] = converted;
  }
  return copy;
}

/** A client for lib-dynamodb's commands over `client` (see above). */
export function documentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  const send = async (command: DocumentCommand) => {
    const { clientCommand } = command;
    clientCommand.input = convertAt(command.input, command.inputKeyNodes, toAttributeValue) as object;
    const output = await client.send(clientCommand as never);
    return convertAt(output, command.outputKeyNodes, fromAttributeValue);
  };
  return { send } as unknown as DynamoDBDocumentClient;
}
