import { OpenAPIRouter, type OpenAPIBackend, type Operation, type Request } from 'openapi-backend';

/**
 * openapi-backend flattens the whole document (lodash over every path) on each getOperation(id),
 * and its init registers every handler through it: one flattening per handler at every cold start
 * of the Api (docs/deploy.md has the cost). The flattening depends only on the dereferenced document, which
 * no one changes once loaded, so each document is flattened once; callers already share the
 * operations once precompileOperationMatching has pinned them, and none of them writes to one.
 */
const flattened = new WeakMap<object, Operation[]>();
const flatten = OpenAPIRouter.prototype.getOperations;
OpenAPIRouter.prototype.getOperations = function getOperations(this: OpenAPIRouter) {
  const definition = this.definition as object | undefined;
  if (!definition) return flatten.call(this);
  let operations = flattened.get(definition);
  if (!operations) flattened.set(definition, (operations = flatten.call(this)));
  return operations;
};

/**
 * openapi-backend's router flattens the whole document with lodash and compiles a RegExp for every
 * path on every request, a cost every call paid (docs/deploy.md). The document does
 * not change after start, so the same matching is done here from tables built once: exact paths
 * first, then templates by specificity, with 404 and 405 told apart as the library does.
 */
export function precompileOperationMatching(api: OpenAPIBackend): void {
  const router = api.router;
  const operations = router.getOperations();
  router.getOperations = () => operations;
  const byOperationId = new Map(operations.map((op) => [op.operationId, op]));
  router.getOperation = (operationId: string) => byOperationId.get(operationId);

  const exact = new Map<string, Operation[]>();
  const templates: { pattern: RegExp; specificity: number; operation: Operation }[] = [];
  for (const operation of operations) {
    (exact.get(operation.path) ?? exact.set(operation.path, []).get(operation.path)!).push(operation);
    const literal = operation.path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    templates.push({
      pattern: new RegExp(`^${literal.join('[^/]+')}$`),
      specificity: operation.path.replace(/\{.*?\}/g, '').length,
      operation,
    });
  }
  templates.sort((a, b) => b.specificity - a.specificity);

  const original = router.matchOperation.bind(router);
  // Private in the library's types: the bracket form reaches it.
  // biome-ignore lint/complexity/useLiteralKeys: the dotted form does not compile on a private member
  const underApiRoot = (path: string): boolean => router['isUnderApiRoot'](path);
  router.matchOperation = ((request: Request, strict?: boolean) => {
    const normalized = router.normalizeRequest(request);
    if (!underApiRoot(normalized.path)) return original(request, strict as never);
    const path = router.normalizePath(normalized.path);
    const method = normalized.method;
    const exactMatch = exact.get(path)?.find((op) => op.method === method);
    if (exactMatch) return exactMatch;
    const matches = templates.filter((t) => t.pattern.test(path));
    const match = matches.find((t) => t.operation.method === method)?.operation;
    if (match) return match;
    // No match: let the library produce its own 404/405 answer.
    return original(request, strict as never);
  }) as typeof router.matchOperation;
}
