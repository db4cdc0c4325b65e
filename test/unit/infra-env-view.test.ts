/** The infra-env document as upstream answers it: empty optional fields left out, zero-value fields present. */
import { describe, expect, it } from 'vitest';
import { createInfraEnvRecord, infraEnvView } from '../../lambdas/domain/image/infra-env.js';

const PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpwYXNz","email":"a@b.c"}}}';

function created(params: Record<string, unknown>) {
  const record = createInfraEnvRecord({ name: 'a', pull_secret: PULL_SECRET, ...params }, {
    orgId: 'org', infraEnvId: '11111111-1111-4111-8111-111111111111', now: '2026-11-29T06:00:00.000Z', imageTokenKey: 'k', userName: 'admin',
  });
  return infraEnvView({ ...record, version: 1 });
}

describe('infra-env view', () => {
  it('leaves out empty strings and lists given at creation, as upstream\'s omitempty does', () => {
    const view = created({ additional_trust_bundle: '', ssh_authorized_key: '', ignition_config_override: '', kernel_arguments: [] });
    for (const field of ['additional_trust_bundle', 'ssh_authorized_key', 'ignition_config_override', 'kernel_arguments']) {
      expect(view).not.toHaveProperty(field);
    }
  });

  it('keeps a given key, and carries the e-mail domain, an unset expiry and an empty proxy from creation', () => {
    const view = created({ ssh_authorized_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOeGJ0dVJ4Ow2fTS4GCYvOVOMEzhuNNMSxLNTpIa6A7l a@b' });
    expect(view.ssh_authorized_key).toMatch(/^ssh-ed25519 /);
    expect(view.email_domain).toBe('Unknown');
    expect(view.expires_at).toBe('0001-01-01T00:00:00.000Z');
    expect(view.proxy).toEqual({});
    expect(created({ proxy: { http_proxy: 'http://proxy.example.com:3128' } }).proxy).toEqual({ http_proxy: 'http://proxy.example.com:3128' });
  });
});
