/**
 * openapi.yaml as the router checks requests against it, with two of upstream's decoding rules
 * (the served document stays as written):
 * - go-swagger reads an integer without a format as int64, so every such integer is checked as
 *   int64 (the router's ajv format admits only integers JavaScript holds exactly);
 * - upstream's decoder refuses a body field its model does not declare ("json: unknown field"): an
 *   object schema that names its properties and says nothing of others is closed here too
 *   (additionalProperties: false). Maps (additionalProperties given) and free objects stay open.
 *   Undeclared fields were stored as sent and echoed back; one nested past DynamoDB's 32 levels was
 *   a 500.
 * - go-swagger decodes a null into a nil pointer whatever the field's enum: a nullable enum admits
 *   null here too (ajv checks the enum before nullable), and the use cases read it as "not given".
 */
type SchemaRule = (schema: Record<string, unknown>) => void;

const int64Integers: SchemaRule = (schema) => {
  if (schema.type === 'integer' && schema.format === undefined) schema.format = 'int64';
};

const closedObjects: SchemaRule = (schema) => {
  if (schema.properties && typeof schema.properties === 'object' && schema.additionalProperties === undefined) schema.additionalProperties = false;
};

const nullableEnums: SchemaRule = (schema) => {
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
};

function withRules<T>(document: T, rules: readonly SchemaRule[]): T {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) copy[key] = visit(value);
    for (const rule of rules) rule(copy);
    return copy;
  };
  return visit(document) as T;
}

export const withClosedObjects = <T>(document: T): T => withRules(document, [closedObjects]);

export function asRouterDocument<T>(document: T): T {
  return withRules(document, [int64Integers, closedObjects, nullableEnums]);
}
