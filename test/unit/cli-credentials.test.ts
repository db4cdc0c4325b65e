import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveCredentials, storeCredentials } from '../../cli/config.js';

describe('the CLI finds its service and token', () => {
  const home = mkdtempSync(path.join(tmpdir(), 'assisted-cli-config-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ XDG_CONFIG_HOME: path.join(home, String(Math.random())), ...extra });

  it('takes ASSISTED_TOKEN alone for the service npm start runs here (ASSISTED_PORT, else 8090)', () => {
    expect(resolveCredentials({}, env({ ASSISTED_TOKEN: 't' }))).toEqual({ url: 'http://127.0.0.1:8090', token: 't' });
    expect(resolveCredentials({}, env({ ASSISTED_TOKEN: 't', ASSISTED_PORT: '8190' }))).toEqual({ url: 'http://127.0.0.1:8190', token: 't' });
    expect(resolveCredentials({ token: 'f' }, env())).toEqual({ url: 'http://127.0.0.1:8090', token: 'f' });
  });

  it('prefers flags, then the environment, then the stored login, and still says "not logged in" with no token at all', () => {
    const stored = env();
    storeCredentials({ url: 'https://assisted.example.com', token: 'stored' }, stored);
    expect(resolveCredentials({}, stored)).toEqual({ url: 'https://assisted.example.com', token: 'stored' });
    expect(resolveCredentials({}, { ...stored, ASSISTED_TOKEN: 'e' })).toEqual({ url: 'https://assisted.example.com', token: 'e' });
    expect(resolveCredentials({ url: 'http://x' }, { ...stored, ASSISTED_URL: 'http://y' })).toEqual({ url: 'http://x', token: 'stored' });
    expect(() => resolveCredentials({}, env({ ASSISTED_URL: 'http://y' }))).toThrow(/not logged in/);
    expect(() => resolveCredentials({}, env())).toThrow(/not logged in/);
  });
});
