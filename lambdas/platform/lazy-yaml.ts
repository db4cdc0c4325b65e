import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

/**
 * What a function bundle imports for `yaml` (lib/esbuild-options.ts aliases it here): the same
 * library, loaded on its first call rather than at every cold start. Several domain modules import
 * yaml at their top for one operation each (a kubeconfig merge, manifests, install-config), and the
 * functions that only judge hosts and clusters would otherwise compile its 116 KiB at init. The
 * functions keep their synchronous signatures: the library is bundled beside index.mjs as yaml.cjs
 * (lib/bundle.ts) and required synchronously by the first call. Tests and the embedded runtime
 * import yaml itself.
 */
let loaded: typeof Yaml | undefined;

function yaml(): typeof Yaml {
  // This module ends up in index.mjs or in a chunk under chunks/; yaml.cjs sits beside index.mjs.
  const beside = new URL(import.meta.url).pathname.includes('/chunks/') ? '../yaml.cjs' : './yaml.cjs';
  loaded ??= createRequire(import.meta.url)(beside) as typeof Yaml;
  return loaded;
}

export const parse = ((...args: Parameters<typeof Yaml.parse>) => yaml().parse(...args)) as typeof Yaml.parse;
export const stringify = ((...args: Parameters<typeof Yaml.stringify>) => yaml().stringify(...args)) as typeof Yaml.stringify;
export const parseDocument = ((...args: Parameters<typeof Yaml.parseDocument>) => yaml().parseDocument(...args)) as typeof Yaml.parseDocument;
export const parseAllDocuments = ((...args: Parameters<typeof Yaml.parseAllDocuments>) => yaml().parseAllDocuments(...args)) as typeof Yaml.parseAllDocuments;

export default { parse, stringify, parseDocument, parseAllDocuments };
