/**
 * Checks response bodies against the schemas openapi.yaml gives for an operation and status, and
 * other wire data (agent step outputs) against its models, so a test fails as soon as we drift from
 * upstream's wire format. The whole document is added to ajv once and each schema is compiled by
 * JSON pointer, so its `#/components/...` refs resolve against the document as they do for clients.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { loadOpenApiDocument } from '../../lambdas/handlers/api/openapi-document.js';

const DOCUMENT_ID = 'openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

interface Operation {
  operationId?: string;
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type PathItem = Partial<Record<(typeof METHODS)[number], Operation>>;

let document: { paths: Record<string, PathItem> } | undefined;
let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

/**
 * ajv refuses `nullable` without `type`; upstream's swagger has it on untyped properties
 * (`deleted_at`), where it constrains nothing, so it is dropped there.
 */
function withoutUntypedNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutUntypedNullable);
  if (!node || typeof node !== 'object') return node;
  const entries = Object.entries(node).filter(([key]) => key !== 'nullable' || 'type' in node);
  return Object.fromEntries(entries.map(([key, value]) => [key, withoutUntypedNullable(value)]));
}

function openApi(): { paths: Record<string, PathItem> } {
  document ??= withoutUntypedNullable(loadOpenApiDocument()) as { paths: Record<string, PathItem> };
  return document;
}

function validatorFactory(): Ajv {
  if (ajv) return ajv;
  // OpenAPI 3.0 schemas carry keywords JSON Schema does not know (example, x-*), hence strict off.
  ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv as never);
  // Formats upstream's swagger uses that ajv-formats does not define (as the API router does).
  ajv.addFormat('mac', /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/);
  ajv.addFormat('string', true);
  ajv.addSchema(openApi(), DOCUMENT_ID);
  return ajv;
}

/** JSON pointer segment, then URI-encoded: path templates carry `/` and `{}`. */
const pointerSegment = (segment: string) => encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'));

function locateOperation(operationId: string): { path: string; method: string; operation: Operation } {
  for (const [path, item] of Object.entries(openApi().paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation?.operationId === operationId) return { path, method, operation };
    }
  }
  throw new Error(`openapi.yaml has no operation ${operationId}`);
}

function locateByRoute(method: string, path: string): Operation {
  const operation = openApi().paths[path]?.[method.toLowerCase() as (typeof METHODS)[number]];
  if (!operation) throw new Error(`openapi.yaml has no ${method.toUpperCase()} ${path}`);
  return operation;
}

/** The validator of the schema at a place in the document, compiled once. */
function compileAt(segments: string[]): ValidateFunction {
  const pointer = segments.map(pointerSegment).join('/');
  const cached = validators.get(pointer);
  if (cached) return cached;
  const validate = validatorFactory().compile({ $ref: `${DOCUMENT_ID}#/${pointer}` });
  validators.set(pointer, validate);
  return validate;
}

function compile(path: string, method: string, operation: Operation, status: number): ValidateFunction {
  const statusKey = operation.responses?.[String(status)] ? String(status) : 'default';
  if (!operation.responses?.[statusKey]?.content?.['application/json']?.schema) {
    throw new Error(`openapi.yaml defines no application/json schema for ${method.toUpperCase()} ${path} ${status}`);
  }
  return compileAt(['paths', path, method, 'responses', statusKey, 'content', 'application/json', 'schema']);
}

/** The validator for a response, found by operationId or by method and path template. */
export function responseValidator(operation: string | { method: string; path: string }, status: number): ValidateFunction {
  if (typeof operation === 'string') {
    const found = locateOperation(operation);
    return compile(found.path, found.method, found.operation, status);
  }
  return compile(operation.path, operation.method.toLowerCase(), locateByRoute(operation.method, operation.path), status);
}

const describeError = (error: ErrorObject) =>
  `${error.instancePath || '(body)'} ${error.message ?? 'is invalid'}${error.params && Object.keys(error.params).length ? ` ${JSON.stringify(error.params)}` : ''}`;

/** Readable violations of the response schema; empty when the body conforms. */
export function schemaViolations(operation: string | { method: string; path: string }, status: number, body: unknown): string[] {
  const validate = responseValidator(operation, status);
  return validate(body) ? [] : (validate.errors ?? []).map(describeError);
}

/**
 * Readable violations of a model in components/schemas (upstream's swagger definitions), for what
 * no operation returns, such as agent step outputs (inventory, connectivity-report...); empty when
 * `value` conforms.
 */
export function modelViolations(schemaName: string, value: unknown): string[] {
  const validate = compileAt(['components', 'schemas', schemaName]);
  return validate(value) ? [] : (validate.errors ?? []).map(describeError);
}

/** Fails the test, listing every violation, unless `body` matches the operation's response schema. */
export function expectMatchesSchema(operationId: string, status: number, body: unknown): void {
  expect(schemaViolations(operationId, status, body), `${operationId} ${status} body does not match openapi.yaml`).toEqual([]);
}
