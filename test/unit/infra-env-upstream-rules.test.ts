/** Upstream's rules for an infra-env's RHCOS version, NTP fields and features (issue 43, checked against upstream's service). */
import { describe, expect, it } from 'vitest';
import { osImageVersionFor } from '../../lambdas/domain/catalogues/catalogues.js';
import { applyInfraEnvUpdate, createInfraEnvRecord, infraEnvFeaturesProblem, infraEnvView } from '../../lambdas/domain/image/infra-env.js';

const PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpwYXNz","email":"a@b.c"}}}';
const context = { orgId: 'org', infraEnvId: '11111111-1111-4111-8111-111111111111', now: '2026-11-29T06:00:00.000Z', imageTokenKey: 'k', userName: 'admin' };

describe('the RHCOS version of an infra-env', () => {
  it('is the minor of the version asked for, or the highest minor with an image for the architecture (a beta one too)', () => {
    expect(osImageVersionFor('4.18.52', 'x86_64')).toBe('4.18');
    expect(osImageVersionFor('4.18', 'aarch64')).toBe('4.18');
    expect(osImageVersionFor('4.22.9-multi', 'x86_64')).toBe('4.22');
    expect(osImageVersionFor(undefined, 'x86_64')).toBe('5.0');
    expect(osImageVersionFor('', 's390x')).toBe('5.0');
  });

  it('is refused (400) when no image fits', () => {
    expect(() => osImageVersionFor('4.99', 'x86_64')).toThrow(/No OS image for Openshift version 4.99 and architecture x86_64/);
    expect(() => osImageVersionFor(undefined, 'multi')).toThrow(/The requested CPU architecture \(multi\) isn't specified in OS images list/);
  });
});

describe('NTP sources of an infra-env', () => {
  it('keeps ntp_sources, checked as additional_ntp_sources is', () => {
    expect(createInfraEnvRecord({ name: 'a', pull_secret: PULL_SECRET, ntp_sources: 'clock.example.com' }, context).attributes.ntp_sources).toBe(
      'clock.example.com',
    );
    expect(() => createInfraEnvRecord({ name: 'a', pull_secret: PULL_SECRET, ntp_sources: 'bad host!' }, context)).toThrow(/Invalid NTP source/);
  });

  it("leaves an emptied ntp_sources out of the document, as upstream's omitempty does", () => {
    const stored = { ...createInfraEnvRecord({ name: 'a', pull_secret: PULL_SECRET, ntp_sources: 'a.example.com' }, context), version: 1 };
    expect(infraEnvView(applyInfraEnvUpdate(stored, { ntp_sources: '' }, context.now))).not.toHaveProperty('ntp_sources');
    // additional_ntp_sources too, given empty at creation or emptied by an update.
    expect(
      infraEnvView({ ...createInfraEnvRecord({ name: 'a', pull_secret: PULL_SECRET, additional_ntp_sources: '' }, context), version: 1 }),
    ).not.toHaveProperty('additional_ntp_sources');
    expect(infraEnvView(applyInfraEnvUpdate(stored, { additional_ntp_sources: '' }, context.now))).not.toHaveProperty('additional_ntp_sources');
  });

  it('refuses both fields at once, on create and on update against what is stored', () => {
    expect(() =>
      createInfraEnvRecord({ name: 'a', pull_secret: PULL_SECRET, ntp_sources: 'a.example.com', additional_ntp_sources: 'b.example.com' }, context),
    ).toThrow(/mutually exclusive/);
    const stored = { ...createInfraEnvRecord({ name: 'a', pull_secret: PULL_SECRET, additional_ntp_sources: 'b.example.com' }, context), version: 1 };
    expect(() => applyInfraEnvUpdate(stored, { ntp_sources: 'a.example.com' }, context.now)).toThrow(/mutually exclusive/);
    expect(applyInfraEnvUpdate(stored, { ntp_sources: 'a.example.com', additional_ntp_sources: '' }, context.now).attributes.ntp_sources).toBe('a.example.com');
  });
});

describe('features of an infra-env with its cluster', () => {
  const oci = {
    attributes: { openshift_version: '4.22.9', platform: { type: 'external' as const, external: { platform_name: 'oci' } }, user_managed_networking: true },
  };
  // Upstream names the pair in its feature map's order, which Go does not fix: either way round.
  it("refuses a full ISO for an OCI cluster, in upstream's words, and takes a minimal one", () => {
    expect(infraEnvFeaturesProblem(oci, 'full-iso', 'x86_64')).toMatch(
      /^cannot use (Full ISO|Oracle Cloud Infrastructure external platform) because it's not compatible with (Full ISO|Oracle Cloud Infrastructure external platform)$/,
    );
    expect(infraEnvFeaturesProblem(oci, 'minimal-iso', 'x86_64')).toBeUndefined();
  });
  it('does not check an imported cluster', () => {
    expect(infraEnvFeaturesProblem({ attributes: { ...oci.attributes, kind: 'AddHostsCluster' } }, 'full-iso', 'x86_64')).toBeUndefined();
  });
});

describe('kernel arguments of an infra-env', () => {
  it("takes append only, as upstream's service does (its schema names replace and delete too)", () => {
    expect(
      createInfraEnvRecord({ name: 'a', pull_secret: PULL_SECRET, kernel_arguments: [{ operation: 'append', value: 'console=ttyS0' }] }, context).attributes
        .kernel_arguments,
    ).toBe('[{"operation":"append","value":"console=ttyS0"}]');
    expect(() => createInfraEnvRecord({ name: 'a', pull_secret: PULL_SECRET, kernel_arguments: [{ operation: 'delete', value: 'quiet' }] }, context)).toThrow(
      'Only kernel argument operation append is supported.  Got delete',
    );
  });
});

describe("an infra-env's proxy", () => {
  it('checks every field: a valid http_proxy does not excuse a malformed no_proxy (upstream: "a..b is not a valid no_proxy entry")', () => {
    const proxy = (fields: Record<string, string>) => createInfraEnvRecord({ name: 'a', pull_secret: PULL_SECRET, proxy: fields }, context);
    expect(() => proxy({ http_proxy: 'http://user:pw@10.0.0.1:8080', no_proxy: 'a..b' })).toThrow(/no_proxy/);
    expect(() => proxy({ https_proxy: 'http://10.0.0.1:8080', no_proxy: 'a..b' })).toThrow(/no_proxy/);
    expect(() => proxy({ http_proxy: 'http://10.0.0.1:8080', https_proxy: 'ftp://x' })).toThrow(/https_proxy/);
    expect(proxy({ http_proxy: 'http://10.0.0.1:8080', no_proxy: '.example.com,10.0.0.0/8' }).attributes.proxy).toMatchObject({
      no_proxy: '.example.com,10.0.0.0/8',
    });
  });
});
