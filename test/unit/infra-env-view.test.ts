/** The infra-env document as upstream answers it: empty optional fields left out, zero-value fields present. */
import { describe, expect, it } from 'vitest';
import { createInfraEnvRecord, imageInfoDetails, infraEnvView } from '../../lambdas/domain/image/infra-env.js';

const PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpwYXNz","email":"a@b.c"}}}';

function created(params: Record<string, unknown>) {
  const record = createInfraEnvRecord(
    { name: 'a', pull_secret: PULL_SECRET, ...params },
    {
      orgId: 'org',
      infraEnvId: '11111111-1111-4111-8111-111111111111',
      now: '2026-11-29T06:00:00.000Z',
      imageTokenKey: 'k',
      userName: 'admin',
    },
  );
  return infraEnvView({ ...record, version: 1 });
}

describe('infra-env view', () => {
  it("leaves out empty strings and lists given at creation, as upstream's omitempty does", () => {
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

describe('image_info_updated details', () => {
  it("names the proxy when set, the image type and whether an SSH key goes in, in upstream's words", () => {
    const bare = createInfraEnvRecord(
      { name: 'a', pull_secret: PULL_SECRET, image_type: 'full-iso' },
      {
        orgId: 'org',
        infraEnvId: '11111111-1111-4111-8111-111111111111',
        now: '2026-11-29T06:00:00.000Z',
        imageTokenKey: 'k',
        userName: 'admin',
      },
    );
    expect(imageInfoDetails(bare)).toBe('Image type is "full-iso", SSH public key is not set');
    const withProxyAndKey = {
      attributes: {
        ...bare.attributes,
        type: 'minimal-iso' as const,
        proxy: { http_proxy: 'http://p.example.com:3128' },
        ssh_authorized_key: 'ssh-ed25519 AAAA a@b',
      },
    };
    expect(imageInfoDetails(withProxyAndKey)).toBe('proxy URL is "http://p.example.com:3128", Image type is "minimal-iso", SSH public key is set');
  });
});
