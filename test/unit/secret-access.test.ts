/** The proxy credentials a caller who may not see secrets does not get, in views and in the install config. */
import { describe, expect, it } from 'vitest';
import { INSTALL_CONFIG_PROXY_FIELDS, withoutProxyCredentials } from '../../lambdas/usecases/secret-access.js';

describe('withoutProxyCredentials', () => {
  it("hides the user and password of a view's proxy URLs, at the top and under proxy, and keeps the rest", () => {
    const view = {
      name: 'c',
      http_proxy: 'http://user:pass@proxy.example.com:3128',
      https_proxy: 'https://proxy.example.com:3128',
      proxy: { http_proxy: 'http://u:p@proxy.example.com', no_proxy: '.example.com' },
    };
    expect(withoutProxyCredentials(view)).toEqual({
      name: 'c',
      http_proxy: 'http://<redacted>@proxy.example.com:3128',
      https_proxy: 'https://proxy.example.com:3128',
      proxy: { http_proxy: 'http://<redacted>@proxy.example.com', no_proxy: '.example.com' },
    });
    expect(view.http_proxy).toBe('http://user:pass@proxy.example.com:3128');
  });

  it("hides them in an install config's proxy by the installer's field names", () => {
    const config = {
      pullSecret: 'secret',
      proxy: { httpProxy: 'http://user:pass@proxy.example.com:3128', httpsProxy: 'http://u:p@proxy.example.com', noProxy: '.c.example.com' },
    };
    expect(withoutProxyCredentials(config, INSTALL_CONFIG_PROXY_FIELDS)).toEqual({
      pullSecret: 'secret',
      proxy: { httpProxy: 'http://<redacted>@proxy.example.com:3128', httpsProxy: 'http://<redacted>@proxy.example.com', noProxy: '.c.example.com' },
    });
    expect(withoutProxyCredentials({ apiVersion: 'v1' }, INSTALL_CONFIG_PROXY_FIELDS)).toEqual({ apiVersion: 'v1' });
  });
});
