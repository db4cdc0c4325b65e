import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Document } from 'openapi-backend';
import { parse } from 'yaml';

/**
 * openapi.yaml sits at the repository root; a deployed bundle carries a copy next to it and
 * names it in OPENAPI_DOCUMENT.
 */
export function openApiDocumentPath(): string {
  return process.env.OPENAPI_DOCUMENT ?? fileURLToPath(new URL('../../../openapi.yaml', import.meta.url));
}

/** A deployed bundle carries the document as JSON (converted at build time): JSON.parse is far cheaper than a YAML parser at every cold start (docs/deploy.md). */
function parsedDocument() {
  const file = openApiDocumentPath();
  const text = readFileSync(file, 'utf8');
  return file.endsWith('.json') ? JSON.parse(text) : parse(text);
}

export function loadOpenApiDocument(): Record<string, unknown> {
  return parsedDocument();
}

/** The document as openapi-backend's router takes it. */
export function loadRouterDefinition(): Document {
  return parsedDocument();
}
