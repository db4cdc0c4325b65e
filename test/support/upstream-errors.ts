/**
 * An error answer in either of upstream's shapes: an operation's `error` ({kind: "Error", id,
 * code: "400", reason}), or its HTTP framework's `{code: 400, message}` for a request refused for
 * its form (a body that does not parse, a value outside the schema, an unknown path or method)
 * and for 401/403. Gives its code as text and its reason; undefined when the body is neither.
 */
export function upstreamError(body: unknown): { code: string; reason: string; shape: 'error' | 'form' } | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { kind, id, code, reason, message } = body as Record<string, unknown>;
  if (kind === 'Error' && typeof code === 'string' && id === Number(code) && typeof reason === 'string') return { code, reason, shape: 'error' };
  if (kind === undefined && typeof code === 'number' && typeof message === 'string') return { code: String(code), reason: message, shape: 'form' };
  return undefined;
}
