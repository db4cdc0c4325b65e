import 'reflect-metadata';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { simulateInstaller, type InstallerOutputs } from '../../lambdas/containers/simulated-installer.js';

const installConfigYaml = 'apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: demo\nsshKey: ssh-ed25519 AAAA demo\n';

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
}

const decoded = (base64: string) => Buffer.from(base64, 'base64').toString('utf8');

function read(outputs: InstallerOutputs) {
  const kubeconfig = YAML.parse(outputs['kubeconfig-noingress']) as Kubeconfig;
  const user = kubeconfig.users[0]!.user;
  const rootPem = decoded(kubeconfig.clusters[0]!.cluster['certificate-authority-data']);
  return {
    kubeconfig,
    rootPem,
    root: new X509Certificate(rootPem),
    admin: new X509Certificate(decoded(user['client-certificate-data'])),
    adminKeyPem: decoded(user['client-key-data']),
  };
}

describe('the SIMULATED installer', () => {
  it('makes a root CA and an admin client certificate it issued, with the key in the kubeconfig', async () => {
    const outputs = await simulateInstaller({ installConfigYaml, manifests: { 'openshift/99-x.yaml': 'kind: ConfigMap\n' } });
    const { kubeconfig, rootPem, root, admin, adminKeyPem } = read(outputs);

    expect(root.ca).toBe(true);
    expect(root.subject).toBe('CN=root-ca\nOU=openshift');
    expect(root.checkIssued(root)).toBe(true);
    expect(root.verify(root.publicKey)).toBe(true);
    const rootUsage = new x509.X509Certificate(rootPem).getExtension(x509.KeyUsagesExtension)!;
    expect(rootUsage.usages & x509.KeyUsageFlags.keyCertSign).toBeTruthy();

    expect(admin.ca).toBe(false);
    expect(admin.subject).toBe('CN=system:admin\nO=system:masters');
    expect(admin.issuer).toBe(root.subject);
    expect(admin.checkIssued(root)).toBe(true);
    expect(admin.verify(root.publicKey)).toBe(true);
    expect(admin.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']); // clientAuth
    expect(adminKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(admin.checkPrivateKey(createPrivateKey(adminKeyPem))).toBe(true);

    expect(kubeconfig.clusters[0]!.cluster.server).toBe('https://api.demo.example.com:6443');
    // The pointer ignitions and the bootstrap node trust the same root.
    const master = JSON.parse(outputs['master.ign']) as { ignition: { security: { tls: { certificateAuthorities: { source: string }[] } } } };
    const trusted = master.ignition.security.tls.certificateAuthorities[0]!.source;
    expect(decoded(trusted.slice(trusted.indexOf('base64,') + 'base64,'.length))).toBe(rootPem);
    const bootstrap = JSON.parse(outputs['bootstrap.ign']) as { storage: { files: { path: string }[] } };
    expect(bootstrap.storage.files.map((file) => file.path)).toEqual(
      expect.arrayContaining(['/opt/openshift/tls/root-ca.crt', '/opt/openshift/auth/kubeconfig', '/opt/openshift/openshift/99-x.yaml']),
    );
  });

  it("puts the API's serving certificate and key, issued by the root CA for api and api-int, in the bootstrap ignition", async () => {
    const outputs = await simulateInstaller({ installConfigYaml, manifests: {} });
    const { root } = read(outputs);
    const bootstrap = JSON.parse(outputs['bootstrap.ign']) as { storage: { files: { path: string; mode: number; contents: { source: string } }[] } };
    const fileText = (path: string) => {
      const source = bootstrap.storage.files.find((file) => file.path === path)?.contents.source ?? '';
      return decoded(source.slice(source.indexOf('base64,') + 'base64,'.length));
    };
    const serving = new X509Certificate(fileText('/opt/openshift/tls/kube-apiserver-lb-server.crt'));
    const keyPem = fileText('/opt/openshift/tls/kube-apiserver-lb-server.key');
    expect(serving.ca).toBe(false);
    expect(serving.checkIssued(root)).toBe(true);
    expect(serving.verify(root.publicKey)).toBe(true);
    expect(serving.checkHost('api.demo.example.com')).toBe('api.demo.example.com');
    expect(serving.checkHost('api-int.demo.example.com')).toBe('api-int.demo.example.com');
    expect(serving.checkHost('console-openshift-console.apps.demo.example.com')).toBeUndefined();
    expect(serving.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // serverAuth
    expect(serving.checkPrivateKey(createPrivateKey(keyPem))).toBe(true);
    expect(bootstrap.storage.files.find((file) => file.path.endsWith('lb-server.key'))?.mode).toBe(0o600);
  });

  it('makes new keys for every installation', async () => {
    const [first, second] = (
      await Promise.all([simulateInstaller({ installConfigYaml, manifests: {} }), simulateInstaller({ installConfigYaml, manifests: {} })])
    ).map(read);
    expect(first!.adminKeyPem).not.toBe(second!.adminKeyPem);
    expect(first!.root.publicKey.export({ type: 'spki', format: 'pem' })).not.toEqual(second!.root.publicKey.export({ type: 'spki', format: 'pem' }));
    expect(first!.root.serialNumber).not.toBe(second!.root.serialNumber);
    expect(first!.admin.checkIssued(second!.root)).toBe(false);
  });

  it('refuses an install-config without a cluster name', async () => {
    await expect(simulateInstaller({ installConfigYaml: 'apiVersion: v1\nbaseDomain: example.com\nmetadata: {}\n', manifests: {} })).rejects.toThrow(
      /metadata\.name/,
    );
  });
});
