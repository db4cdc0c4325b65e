import { withInt64Integers } from './int64-integers.js';

/**
 * upstream's decoder refuses a body field its model does not declare ("json: unknown field"): an
 * object schema that names its properties and says nothing of others is closed here too
 * (additionalProperties: false). Maps (additionalProperties given) and free objects stay open.
 * Undeclared fields were stored as sent and echoed back; one nested past DynamoDB's 32 levels was
 * a 500.
 */
export function withClosedObjects<T>(schema: T): T {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) copy[key] = visit(value);
    if (copy.properties && typeof copy.properties === 'object' && copy.additionalProperties === undefined) copy.additionalProperties = false;
    return copy;
  };
  return visit(schema) as T;
}

/** openapi.yaml as the router checks requests against it: with upstream's integer and unknown-field rules (the served document stays as written). */
export function asRouterDocument<T>(document: T): T {
  return withInt64Integers(withClosedObjects(document));
}
