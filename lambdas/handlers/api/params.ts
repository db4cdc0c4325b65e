import type { Context as OpenApiContext } from 'openapi-backend';

/**
 * A path parameter of the operation the request was routed to (matched and validated against
 * openapi.yaml before we run): only a name that operation's path has is accepted.
 */
export function pathParam<Path extends object>(api: { request: { params: Path } }, name: keyof Path & string): string {
  return String(api.request.params[name]);
}

export function queryString(api: OpenApiContext, name: string): string | undefined {
  const value = api.request.query[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A query parameter that may repeat (collectionFormat multi): every value given. */
export function queryList(api: OpenApiContext, name: string): string[] {
  const value = api.request.query[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The named query parameters given, by name. */
export function queryStrings<Name extends string>(api: OpenApiContext, names: readonly Name[]): Partial<Record<Name, string>> {
  const given: Partial<Record<Name, string>> = {};
  for (const name of names) {
    const value = queryString(api, name);
    if (value !== undefined) given[name] = value;
  }
  return given;
}

/** Query booleans arrive as text; openapi-backend validated them as booleans. */
export function queryFlag(api: OpenApiContext, name: string): boolean | undefined {
  const value = queryString(api, name);
  return value === undefined ? undefined : value === 'true';
}

export function header(api: OpenApiContext, name: string): string | undefined {
  const value = api.request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
