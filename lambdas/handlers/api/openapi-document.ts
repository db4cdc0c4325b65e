import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/**
 * openapi.yaml sits at the repository root; a deployed bundle carries a copy next to it and
 * names it in OPENAPI_DOCUMENT.
 */
export function openApiDocumentPath(): string {
  return process.env.OPENAPI_DOCUMENT ?? fileURLToPath(new URL('../../../openapi.yaml', import.meta.url));
}

export function loadOpenApiDocument(): Record<string, unknown> {
  return parse(readFileSync(openApiDocumentPath(), 'utf8')) as Record<string, unknown>;
}
