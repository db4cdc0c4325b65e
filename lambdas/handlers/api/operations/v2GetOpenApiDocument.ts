import { stringify } from 'yaml';
import { loadOpenApiDocument } from '../openapi-document.js';
import type { PublicOperation } from '../context.js';

let yamlText: string | undefined;

/** The contract itself, public like upstream's swagger.yaml; rendered once per process. */
export const v2GetOpenApiDocument: PublicOperation = async () => {
  yamlText ??= stringify(loadOpenApiDocument(), { lineWidth: 0 });
  return { statusCode: 200, headers: { 'Content-Type': 'application/yaml', 'Cache-Control': 'public, max-age=300' }, body: yamlText };
};
