/**
 * What a bundle of the Api carries in place of @apidevtools/json-schema-ref-parser (lib/esbuild-options.ts
 * aliases it here; 56 KiB, and js-yaml's 50 with it). openapi-backend imports it at load, but in
 * quick mode with a document given as an object (index.ts) it dereferences with
 * dereference-json-schema instead, and only starts a `parse` whose result is read by nothing but
 * validateDefinition(), which quick mode skips: `parse` answers the document as it is. The other
 * entry points fail loudly: a router that needs them (quick mode off, a document given by path)
 * must not run on a stand-in. Tests and the embedded runtime run the real module.
 */
class UnbundledParser {
  async parse(document: unknown): Promise<unknown> {
    return document;
  }
  async dereference(): Promise<never> {
    throw new Error('json-schema-ref-parser is not bundled: the Api router dereferences its document with dereference-json-schema (quick mode)');
  }
  async resolve(): Promise<never> {
    throw new Error('json-schema-ref-parser is not bundled: the Api router dereferences its document with dereference-json-schema (quick mode)');
  }
}

export default new UnbundledParser();
