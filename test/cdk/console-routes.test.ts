/** The CloudFront Function of the console behaviour, run as CloudFront would: handler(event) → request. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/assisted-stack.js';

type Request = { uri: string; method: string };
const source = readFileSync(join(PROJECT_ROOT, 'lib', 'cloudfront', 'console-routes.js'), 'utf8');

function viewerRequest(uri: string): string {
  const sandbox: { handler?: (event: { request: Request }) => Request } = {};
  runInNewContext(`${source}\nthis.handler = handler;`, sandbox);
  return sandbox.handler!({ request: { uri, method: 'GET' } }).uri;
}

describe('console routes function', () => {
  it('answers console routes with index.html', () => {
    expect(viewerRequest('/')).toBe('/index.html');
    expect(viewerRequest('/clusters')).toBe('/index.html');
    expect(viewerRequest('/clusters/8d5e3c1a-0000-4000-8000-000000000001/hosts')).toBe('/index.html');
  });

  it('leaves files alone', () => {
    expect(viewerRequest('/index.html')).toBe('/index.html');
    expect(viewerRequest('/assets/main.4f2a9c.js')).toBe('/assets/main.4f2a9c.js');
    expect(viewerRequest('/favicon.ico')).toBe('/favicon.ico');
  });
});
