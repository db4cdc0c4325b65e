/**
 * Paths no operation may be routed by. openapi-backend trims whitespace from the path, drops
 * trailing slashes and decodes path parameters once more, and URL parsers resolve dot segments:
 * `DELETE /clusters/<id>%20` deleted cluster <id>, `…/hosts/..` reached UpdateInfraEnv, and `%25`
 * or a malformed escape failed with a 500. Such a path is refused before routing, with the reason.
 */
const MAX_ECHOED = 120;

export function unroutablePath(path: string): string | undefined {
  const shown = path.length > MAX_ECHOED ? `${path.slice(0, MAX_ECHOED)}…` : path;
  if (/[\s\u0000-\u001f\u007f]/.test(path)) return `the path ${JSON.stringify(shown)} contains whitespace or control characters (a percent-encoded space or newline in an id?)`;
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) return `the path ${JSON.stringify(shown)} contains '.' or '..' segments; name the resource directly`;
  if (path.includes('%')) return `the path ${JSON.stringify(shown)} contains '%' (a percent-encoded '%' or an escape that is not UTF-8); ids and names in paths never do`;
  return undefined;
}
