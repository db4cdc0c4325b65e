/**
 * The SIMULATED installer: what `openshift-install create ignition-configs` produces, made without
 * a release payload, for machines where no openshift-install is configured (like upstream's
 * dummy-ignition mode). The keys and certificates are real (a CA, an admin client certificate
 * and the API's serving certificate signed by it, the CA trusted by the pointer ignitions) and every ignition file is valid Ignition
 * 3.2, so everything downstream (serving ignition to hosts, the kubeconfig merge, downloads) runs
 * for real. What is simulated is the cluster those files would bring up: none would.
 */
// tsyringe, which @peculiar/x509 registers its algorithms with, needs the Reflect metadata API first.
import 'reflect-metadata';
import { KeyObject, randomBytes, randomUUID, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import YAML from 'yaml';
import { dataUrl } from '../domain/image/discovery-ignition.js';
import type { InstallerOutputs } from '../domain/install/installer-outputs.js';
import { isJsonObject } from '../../contracts/json-shapes.js';

x509.cryptoProvider.set(webcrypto);

export const SIMULATED_INSTALLER_NAME = 'SIMULATED installer';

export interface SimulationInput {
  installConfigYaml: string;
  /** Manifests to place on the bootstrap node, by folder/file name (e.g. `openshift/99-x.yaml`). */
  manifests: Record<string, string>;
}

export type { InstallerOutputs };

const DAY_MS = 86_400_000;

function serial(): string {
  // Positive, 16 bytes: RFC 5280 wants a positive integer of at most 20 octets.
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;

function validity(days: number): { notBefore: Date; notAfter: Date } {
  return { notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + days * DAY_MS) };
}

/**
 * An ECDSA P-256 key pair, generated and used for signing by Node's native WebCrypto. openshift-install
 * itself makes RSA keys; these are EC because the simulated files cannot bring up a real cluster
 * anyway, and an RSA key costs the task many times the CPU of an EC one to make.
 */
async function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify']);
}

/** The installation's root CA, self-signed. */
async function rootCertificate(keys: webcrypto.CryptoKeyPair, days: number): Promise<x509.X509Certificate> {
  return x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: [{ CN: ['root-ca'] }, { OU: ['openshift'] }],
    keys,
    signingAlgorithm: SIGNING,
    ...validity(days),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
}

/** A certificate the root CA issues: not a CA, for signing only, with the given purposes. */
async function issuedCertificate(
  publicKey: webcrypto.CryptoKey,
  root: { cert: x509.X509Certificate; key: webcrypto.CryptoKey },
  days: number,
  subject: x509.JsonName,
  usage: x509.ExtendedKeyUsageType,
  extra: x509.Extension[] = [],
): Promise<x509.X509Certificate> {
  return x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: root.cert.subjectName,
    publicKey,
    signingKey: root.key,
    signingAlgorithm: SIGNING,
    ...validity(days),
    extensions: [
      new x509.BasicConstraintsExtension(false),
      // Signing only: keyEncipherment is an RSA key's usage, not an EC key's.
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([usage]),
      ...extra,
      await x509.AuthorityKeyIdentifierExtension.create(root.cert.publicKey),
    ],
  });
}

/** The client certificate of system:admin (group system:masters), signed by the root CA. */
function adminCertificate(
  publicKey: webcrypto.CryptoKey,
  root: { cert: x509.X509Certificate; key: webcrypto.CryptoKey },
  days: number,
): Promise<x509.X509Certificate> {
  return issuedCertificate(publicKey, root, days, [{ CN: ['system:admin'] }, { O: ['system:masters'] }], x509.ExtendedKeyUsage.clientAuth);
}

/**
 * The API server's serving certificate for api.<cluster domain> and api-int.<cluster domain>,
 * signed by the root CA, as a real bootstrap ignition carries the load balancers' serving
 * certificates: the cluster's API serves it and the kubeconfig's CA verifies it.
 */
function apiServingCertificate(
  publicKey: webcrypto.CryptoKey,
  root: { cert: x509.X509Certificate; key: webcrypto.CryptoKey },
  clusterDomain: string,
  days: number,
): Promise<x509.X509Certificate> {
  const names = [`api.${clusterDomain}`, `api-int.${clusterDomain}`];
  return issuedCertificate(publicKey, root, days, [{ CN: [names[0]!] }], x509.ExtendedKeyUsage.serverAuth, [
    new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: 'dns' as const, value }))),
  ]);
}

/** kubeadmin's password in openshift-install's shape: four groups of five characters. */
function kubeadminPassword(): string {
  const alphabet = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(20);
  const chars = [...bytes].map((byte) => alphabet[byte % alphabet.length]!);
  return [0, 5, 10, 15].map((start) => chars.slice(start, start + 5).join('')).join('-');
}

function pointerIgnition(role: 'master' | 'worker', apiInt: string, caPem: string): string {
  return JSON.stringify({
    ignition: {
      config: { merge: [{ source: `https://${apiInt}:22623/config/${role}` }] },
      security: { tls: { certificateAuthorities: [{ source: dataUrl(caPem) }] } },
      version: '3.2.0',
    },
  });
}

export async function simulateInstaller(input: SimulationInput): Promise<InstallerOutputs> {
  const parsed: unknown = YAML.parse(input.installConfigYaml);
  const config = isJsonObject(parsed) ? parsed : {};
  const name = isJsonObject(config.metadata) && typeof config.metadata.name === 'string' ? config.metadata.name : undefined;
  const baseDomain = typeof config.baseDomain === 'string' ? config.baseDomain : undefined;
  const sshKey = typeof config.sshKey === 'string' ? config.sshKey : undefined;
  if (!name || !baseDomain) throw new Error('install-config.yaml names no cluster (metadata.name) or base domain (baseDomain)');
  const clusterDomain = `${name}.${baseDomain}`;
  const infraId = `${name.slice(0, 27)}-${randomBytes(3).toString('hex').slice(0, 5)}`;

  const [rootKeys, adminKeys, servingKeys] = await Promise.all([keyPair(), keyPair(), keyPair()]);
  const rootCa = await rootCertificate(rootKeys, 3650);
  const rootPem = rootCa.toString('pem');
  const adminCert = await adminCertificate(adminKeys.publicKey, { cert: rootCa, key: rootKeys.privateKey }, 3650);
  const adminKeyPem = KeyObject.from(adminKeys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  const servingCert = await apiServingCertificate(servingKeys.publicKey, { cert: rootCa, key: rootKeys.privateKey }, clusterDomain, 3650);
  const servingKeyPem = KeyObject.from(servingKeys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();

  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: `https://api.${clusterDomain}:6443`, 'certificate-authority-data': Buffer.from(rootPem).toString('base64') } }],
    users: [
      {
        name: 'admin',
        user: {
          'client-certificate-data': Buffer.from(adminCert.toString('pem')).toString('base64'),
          'client-key-data': Buffer.from(adminKeyPem).toString('base64'),
        },
      },
    ],
    contexts: [{ name: 'admin', context: { cluster: name, user: 'admin' } }],
    'current-context': 'admin',
    preferences: {},
  };
  const kubeconfigYaml = YAML.stringify(kubeconfig);
  const password = kubeadminPassword();

  const file = (path: string, contents: string, mode = 0o644) => ({ path, mode, overwrite: true, contents: { source: dataUrl(contents) } });
  const bootstrap = {
    ignition: { version: '3.2.0' },
    passwd: sshKey ? { users: [{ name: 'core', sshAuthorizedKeys: [sshKey.trim()] }] } : {},
    storage: {
      files: [
        file('/etc/motd', `This node was prepared by the ${SIMULATED_INSTALLER_NAME} of assisted-cloud: it cannot run OpenShift.\n`),
        file('/opt/openshift/tls/root-ca.crt', rootPem),
        file('/opt/openshift/auth/kubeconfig', kubeconfigYaml, 0o600),
        file('/opt/openshift/tls/kube-apiserver-lb-server.crt', servingCert.toString('pem')),
        file('/opt/openshift/tls/kube-apiserver-lb-server.key', servingKeyPem, 0o600),
        ...Object.entries(input.manifests).map(([relative, contents]) => file(`/opt/openshift/${relative}`, contents)),
      ],
    },
    systemd: {
      units: [
        {
          name: 'bootkube.service',
          enabled: true,
          contents:
            '[Unit]\nDescription=Bootstrap a Kubernetes cluster (simulated: prints a notice and exits)\n\n[Service]\nType=oneshot\nExecStart=/usr/bin/echo "simulated bootstrap: no release payload"\n\n[Install]\nWantedBy=multi-user.target\n',
        },
      ],
    },
  };

  const metadata = { clusterName: name, clusterID: randomUUID(), infraID: infraId, simulated: true };
  return {
    'bootstrap.ign': JSON.stringify(bootstrap),
    'master.ign': pointerIgnition('master', `api-int.${clusterDomain}`, rootPem),
    'worker.ign': pointerIgnition('worker', `api-int.${clusterDomain}`, rootPem),
    'metadata.json': JSON.stringify(metadata),
    'kubeconfig-noingress': kubeconfigYaml,
    'kubeadmin-password': password,
  };
}
