/**
 * What a bundle of the Api carries in place of qs (lib/esbuild-options.ts aliases it here; with
 * object-inspect, get-intrinsic and side-channel, ~55 KiB). openapi-backend's router parses a query
 * string with it only when a request gives none as an object; index.ts always gives one (queryOf),
 * and matching reads no query. So `parse` answers an absent query string with no parameters and
 * fails loudly on any other: a query must not be parsed by a stand-in.
 */
export function parse(queryString: string | undefined): Record<string, never> {
  if (queryString === undefined || queryString === '') return {};
  throw new Error('qs is not bundled: the Api router is given each query as an object (handlers/api/index.ts)');
}

export function stringify(): never {
  throw new Error('qs is not bundled: the Api router is given each query as an object (handlers/api/index.ts)');
}

export default { parse, stringify };
