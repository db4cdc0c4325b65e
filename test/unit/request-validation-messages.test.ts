/**
 * A request refused by the OpenAPI document's schemas says what was wanted in words: patterns by
 * their description (pattern-descriptions.json), enums by their allowed values.
 */
import { describe, expect, it } from 'vitest';
import { loadOpenApiDocument } from '../../lambdas/handlers/api/openapi-document.js';
import { describeValidationError } from '../../lambdas/handlers/api/validation-messages.js';
import { withClosedObjects } from '../../lambdas/handlers/api/router-document.js';
import descriptions from '../../lambdas/handlers/api/pattern-descriptions.json' with { type: 'json' };

function patternsOf(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) patternsOf(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') found.add(value);
      else patternsOf(value, found);
    }
  }
  return found;
}

describe('request validation messages', () => {
  it('has words for every pattern in openapi.yaml, and none for patterns it no longer has', () => {
    const inDocument = patternsOf(loadOpenApiDocument());
    expect(inDocument.size).toBeGreaterThan(5);
    const described = descriptions.patterns as Record<string, string>;
    expect([...inDocument].filter((pattern) => !described[pattern])).toEqual([]);
    expect(Object.keys(described).filter((pattern) => !inDocument.has(pattern))).toEqual([]);
  });

  it('names what a pattern wants instead of the regular expression', () => {
    const cidr = [...patternsOf(loadOpenApiDocument())].find((pattern) => pattern.includes('3[0-2]') && pattern.includes('12[0-8]'))!;
    const text = describeValidationError({
      instancePath: '/machine_networks/0/cidr',
      schemaPath: '#/x',
      keyword: 'pattern',
      message: `must match pattern "${cidr}"`,
      params: { pattern: cidr },
    });
    expect(text).toBe(
      'machine_networks/0/cidr: must be an IPv4 or IPv6 network in CIDR notation, such as 192.168.111.0/24 or fd2e:6f44:5dd8::/64 (prefix length up to 32 for IPv4, 128 for IPv6)',
    );
    const unknown = describeValidationError({
      instancePath: '/x',
      schemaPath: '#/x',
      keyword: 'pattern',
      message: 'must match pattern "^a+$"',
      params: { pattern: '^a+$' },
    });
    expect(unknown).not.toContain('^a+$');
  });

  it('names an undeclared field, cut short, as upstream refuses it', () => {
    const error = (instancePath: string, name: string) =>
      describeValidationError({
        instancePath,
        schemaPath: '#/x',
        keyword: 'additionalProperties',
        message: 'must NOT have additional properties',
        params: { additionalProperty: name },
      });
    expect(error('/requestBody/platform/external', 'deep')).toBe('platform/external: unknown field "deep"');
    expect(error('/requestBody', 'x'.repeat(10_000))).toBe(`unknown field "${'x'.repeat(64)}…"`);
  });

  it('closes the objects that name their properties, and leaves maps and free objects open', () => {
    const closed = withClosedObjects({
      named: { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } } } },
      map: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
      free: { type: 'object' },
    });
    expect(closed.named).toMatchObject({ additionalProperties: false, properties: { a: { additionalProperties: false } } });
    expect(closed.map.additionalProperties).toEqual({ type: 'string' });
    expect(closed.free).toEqual({ type: 'object' });
  });

  it('lists the allowed values of an enum', () => {
    expect(
      describeValidationError({
        instancePath: '/role',
        schemaPath: '#/x',
        keyword: 'enum',
        message: 'must be equal to one of the allowed values',
        params: { allowedValues: ['admin', 'user', 'read-only'] },
      }),
    ).toBe('role: must be one of admin, user, read-only');
  });
});
