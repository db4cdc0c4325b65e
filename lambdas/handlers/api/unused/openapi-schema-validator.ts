/**
 * What a bundle of the Api carries in place of openapi-schema-validator (lib/esbuild-options.ts
 * aliases it here; 53 KiB, with its own copy of draft-04 ajv and lodash.merge). openapi-backend
 * imports it at load and uses it only in validateDefinition(), which quick mode (index.ts) skips:
 * openapi.yaml is validated by the tests, not at every cold start. Constructing it fails loudly.
 */
export default class UnbundledOpenApiSchemaValidator {
  constructor() {
    throw new Error('openapi-schema-validator is not bundled: the Api router does not validate its document at run time (quick mode)');
  }
}
