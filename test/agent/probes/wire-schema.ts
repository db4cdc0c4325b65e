/**
 * Validation of agent outputs against the wire models of openapi.yaml (upstream's swagger
 * definitions: inventory, connectivity-report...). Same loading as test/support/response-schema.ts,
 * which validates responses by operation; step outputs are models no operation returns.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { loadOpenApiDocument } from '../../../lambdas/handlers/api/openapi-document.js';

let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

function withoutUntypedNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutUntypedNullable);
  if (!node || typeof node !== 'object') return node;
  const entries = Object.entries(node).filter(([key]) => key !== 'nullable' || 'type' in node);
  return Object.fromEntries(entries.map(([key, value]) => [key, withoutUntypedNullable(value)]));
}

function validator(schemaName: string): ValidateFunction {
  const cached = validators.get(schemaName);
  if (cached) return cached;
  if (!ajv) {
    ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats.default(ajv as never);
    ajv.addFormat('mac', /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/);
    ajv.addFormat('string', true);
    ajv.addSchema(withoutUntypedNullable(loadOpenApiDocument()) as object, 'openapi.json');
  }
  const validate = ajv.compile({ $ref: `openapi.json#/components/schemas/${schemaName}` });
  validators.set(schemaName, validate);
  return validate;
}

/** Readable violations of a components/schemas model; empty when `value` conforms. */
export function modelViolations(schemaName: string, value: unknown): string[] {
  const validate = validator(schemaName);
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`);
}
