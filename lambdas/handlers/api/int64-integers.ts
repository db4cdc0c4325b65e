/**
 * go-swagger reads an integer without a format as int64, so upstream refuses what does not fit one.
 * The router checks every such integer as int64 too (its ajv format admits only integers JavaScript
 * holds exactly); the served document stays as upstream wrote it.
 */
export function withInt64Integers<T>(schema: T): T {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) copy[key] = visit(value);
    if (copy.type === 'integer' && copy.format === undefined) copy.format = 'int64';
    return copy;
  };
  return visit(schema) as T;
}
