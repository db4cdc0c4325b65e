import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { LocalCache } from '../ports/local-caches.js';

/**
 * Stack traces that name the original files and lines, at no cost to a cold start. A deployed
 * bundle is minified (with names kept) and ships its source maps beside each file; Node's
 * --enable-source-maps would read and decode every map while the bundle loads, at every cold start
 * (docs/deploy.md has the figures), for traces few invocations ever print. Instead a
 * stack is mapped when it is first read (V8 formats `error.stack` lazily): the map of each file in
 * it is read then, once per container. A frame whose file has no map stays as V8 wrote it.
 *
 * Installed only where it is needed: in a bundle (this module's own file has a map beside it) and
 * without --enable-source-maps (which already maps, and which this would otherwise replace).
 */
const maps = new LocalCache<{ map?: SourceMap }>('source-maps');

function mapOf(fileName: string): SourceMap | undefined {
  const known = maps.peek(fileName);
  if (known) return known.map;
  let map: SourceMap | undefined;
  try {
    const path = fileName.startsWith('file:') ? fileURLToPath(fileName) : fileName;
    map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')) as never);
  } catch {
    map = undefined;
  }
  maps.set(fileName, map ? { map } : {});
  return map;
}

/** The original source as the map names it, without the bundler's leading `../` (lambdas/…, node_modules/…). */
function sourceName(source: string): string {
  return source.replace(/^(?:\.\.\/)+/, '').replace(/^.*?\/(?=(?:lambdas|node_modules|lib)\/)/, '');
}

function mappedFrame(site: NodeJS.CallSite): string {
  const text = String(site);
  const fileName = site.getFileName();
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  if (!fileName || !line || !column) return text;
  const map = mapOf(fileName);
  const entry = map?.findEntry(line - 1, column - 1);
  // A position the map does not cover gives an empty entry.
  if (!entry || !('originalSource' in entry) || !entry.originalSource || entry.originalLine === undefined || entry.originalColumn === undefined) return text;
  const location = `${fileName}:${line}:${column}`;
  const original = `${sourceName(entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  return text.includes(location) ? text.replace(location, original) : `${text} (${original})`;
}

function header(error: unknown): string {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    return 'Error';
  }
}

export function mapStackTraces(): void {
  Error.prepareStackTrace = (error, sites) => `${header(error)}${sites.map((site) => `\n    at ${mappedFrame(site)}`).join('')}`;
}

function bundled(): boolean {
  try {
    return import.meta.url.startsWith('file:') && existsSync(`${fileURLToPath(import.meta.url)}.map`);
  } catch {
    return false;
  }
}

if (!process.sourceMapsEnabled && bundled()) mapStackTraces();
