import { describe, expect, it } from 'vitest';
import { safeReturnPath } from '../../console/src/return-path.js';

const ORIGIN = 'http://127.0.0.1:8090';
const CLUSTERS = '/assisted-installer/clusters';
const returnPath = (candidate: string | undefined) => safeReturnPath(candidate, ORIGIN, CLUSTERS);

describe('console: where signing in may return to', () => {
  it('keeps a path of the console, with its query', () => {
    expect(returnPath('/settings/api-tokens')).toBe('/settings/api-tokens');
    expect(returnPath('/assisted-installer/clusters/6e2a1d2c-0000-4000-8000-000000000000?tab=hosts')).toBe(
      '/assisted-installer/clusters/6e2a1d2c-0000-4000-8000-000000000000?tab=hosts',
    );
    expect(returnPath('/join')).toBe('/join');
    expect(returnPath('/')).toBe(CLUSTERS);
    expect(returnPath(undefined)).toBe(CLUSTERS);
  });

  const elsewhere = [
    '//evil.example/x',
    '///evil.example/x',
    '/\\evil.example/x',
    '\\\\evil.example/x',
    '/%2Fevil.example/x',
    '/%2fevil.example/x',
    '/%5Cevil.example/x',
    '/\t/evil.example/x',
    '/\n/evil.example/x',
    '/./\u002f/evil.example',
    '/.//evil.example/x',
    'https://evil.example/x',
    'javascript:alert(1)',
    'evil.example/x',
    '/%E0%A4%A',
    '/api/assisted-install/v2/clusters',
    '/identity/session/end',
    '/sign-in/callback',
  ];
  it.each(elsewhere)('sends %j to the clusters instead', (candidate) => {
    expect(returnPath(candidate)).toBe(CLUSTERS);
  });
});
