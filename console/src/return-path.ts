/**
 * Where the console may send the browser after signing in: a path of the console itself, never
 * another site. The address bar is the attacker's to write: `http://HOST//evil.example/x` has the
 * path `//evil.example/x`, which a browser reads as another host, and `/\evil.example`, `/%2F…`,
 * or tabs and newlines inside the path (which URL parsing drops) are the same trick in other
 * spellings. Pure (no window, no imports), so it is unit-tested outside a browser.
 */
/** Prefixes that are the API's or the identity provider's, not pages of the console. */
const NOT_CONSOLE_PAGES = ['/api/', '/identity/', '/sign-in/'];

/** `candidate` if it is a console page of `origin`, else `fallback` (the clusters list). */
export function safeReturnPath(candidate: string | null | undefined, origin: string, fallback: string): string {
  if (!candidate || candidate === '/') return fallback;
  // Only an absolute path, and one that stays so once decoded: no scheme, no '//' or '/\' start.
  const sameSiteStart = (path: string) => path.startsWith('/') && !/^\/[/\\]/.test(path);
  let decoded: string;
  try {
    decoded = decodeURIComponent(candidate);
  } catch {
    return fallback;
  }
  // Control characters and whitespace never belong in a console path; URL parsing would drop some.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this check refuses
  if (/[\u0000-\u0020\u007f-\u009f]/.test(decoded) || !sameSiteStart(candidate) || !sameSiteStart(decoded)) return fallback;
  let url: URL;
  try {
    url = new URL(candidate, origin);
  } catch {
    return fallback;
  }
  // And what the browser would make of it: the same origin, and a path that does not turn into
  // '//' once dot segments are resolved ('/.//evil.example' is '//evil.example').
  if (url.origin !== new URL(origin).origin || !sameSiteStart(url.pathname)) return fallback;
  if (NOT_CONSOLE_PAGES.some((prefix) => `${url.pathname}/`.startsWith(prefix))) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
