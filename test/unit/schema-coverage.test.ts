/**
 * Every implemented operation must have its success response checked against the upstream schema
 * by some test (expectMatchesSchema), unless that response has no body. This keeps the promise
 * "our responses validate against upstream's" true as operations are added.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOpenApiDocument } from '../../lambdas/handlers/api/openapi-document.js';
import { operations as userOperations, publicOperations } from '../../lambdas/handlers/api/operations/index.js';

const operations = { ...userOperations, ...publicOperations };

type Responses = Record<string, { content?: Record<string, { schema?: unknown }> }>;

function successBodies(): Map<string, boolean> {
  const document = loadOpenApiDocument() as { paths: Record<string, Record<string, { operationId?: string; responses?: Responses }>> };
  const bodies = new Map<string, boolean>();
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (!operation?.operationId) continue;
      const success = Object.entries(operation.responses ?? {}).filter(([status]) => status.startsWith('2'));
      bodies.set(
        operation.operationId,
        success.some(([, response]) => !!response.content?.['application/json']?.schema),
      );
    }
  }
  return bodies;
}

function testSources(directory: string): string {
  return readdirSync(directory, { withFileTypes: true })
    .map((entry) => {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) return testSources(full);
      return entry.name.endsWith('.test.ts') ? readFileSync(full, 'utf8') : '';
    })
    .join('\n');
}

describe('response schema coverage', () => {
  it('has every implemented operation in openapi.yaml', () => {
    const bodies = successBodies();
    expect(Object.keys(operations).filter((id) => !bodies.has(id))).toEqual([]);
  });

  it('checks every implemented JSON response against its upstream schema in some test', () => {
    const sources = testSources(path.resolve(import.meta.dirname, '..'));
    const bodies = successBodies();
    const unchecked = Object.keys(operations).filter((id) => {
      if (!bodies.get(id)) return false;
      const direct = new RegExp(`expectMatchesSchema\\(\\s*['"\`]${id}['"\`]`).test(sources);
      // Table-driven checks name the operation in their table rather than in the call.
      const tabled = sources.includes(`'${id}'`) && /expectMatchesSchema\(\s*operationId/.test(sources);
      return !direct && !tabled;
    });
    expect(unchecked).toEqual([]);
  });
});
