/**
 * The SIMULATED installer: what `openshift-install create ignition-configs` produces, made without
 * a release payload, for machines where no openshift-install is configured (like upstream's
 * dummy-ignition mode). The keys and certificates are real (a CA, an admin client certificate
 * signed by it, the CA trusted by the pointer ignitions) and every ignition file is valid Ignition
 * 3.2, so everything downstream (serving ignition to hosts, the kubeconfig merge, downloads) runs
 * for real. What is simulated is the cluster those files would bring up: none would.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import forge from 'node-forge';
import YAML from 'yaml';

export const SIMULATED_INSTALLER_NAME = 'SIMULATED installer';

export interface SimulationInput {
  installConfigYaml: string;
  /** Manifests to place on the bootstrap node, by folder/file name (e.g. `openshift/99-x.yaml`). */
  manifests: Record<string, string>;
}

export interface InstallerOutputs {
  'bootstrap.ign': string;
  'master.ign': string;
  'worker.ign': string;
  'metadata.json': string;
  'kubeconfig-noingress': string;
  'kubeadmin-password': string;
}

interface InstallConfig {
  metadata?: { name?: string };
  baseDomain?: string;
  sshKey?: string;
}

const DAY_MS = 86_400_000;
const dataUrl = (text: string) => `data:text/plain;charset=utf-8;base64,${Buffer.from(text).toString('base64')}`;

function serial(): string {
  // Positive, 16 bytes: RFC 5280 wants a positive integer of at most 20 octets.
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

function certificate(options: {
  subject: forge.pki.CertificateField[];
  issuer?: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey };
  publicKey: forge.pki.rsa.PublicKey;
  signingKey: forge.pki.rsa.PrivateKey;
  ca: boolean;
  validDays: number;
}): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = options.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + options.validDays * DAY_MS);
  cert.setSubject(options.subject);
  cert.setIssuer(options.issuer ? options.issuer.cert.subject.attributes : options.subject);
  cert.setExtensions(
    options.ca
      ? [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true }, { name: 'subjectKeyIdentifier' }]
      : [{ name: 'basicConstraints', cA: false }, { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true }, { name: 'extKeyUsage', clientAuth: true }],
  );
  cert.sign(options.signingKey, forge.md.sha256.create());
  return cert;
}

function keyPair(): forge.pki.rsa.KeyPair {
  // forge uses Node's native RSA generation when it is available, so this takes milliseconds.
  return forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
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

export function simulateInstaller(input: SimulationInput): InstallerOutputs {
  const config = (YAML.parse(input.installConfigYaml) ?? {}) as InstallConfig;
  const name = config.metadata?.name;
  const baseDomain = config.baseDomain;
  if (!name || !baseDomain) throw new Error('install-config.yaml names no cluster (metadata.name) or base domain (baseDomain)');
  const clusterDomain = `${name}.${baseDomain}`;
  const infraId = `${name.slice(0, 27)}-${randomBytes(3).toString('hex').slice(0, 5)}`;

  const rootKeys = keyPair();
  const rootSubject = [{ name: 'commonName', value: 'root-ca' }, { name: 'organizationalUnitName', value: 'openshift' }];
  const rootCa = certificate({ subject: rootSubject, publicKey: rootKeys.publicKey, signingKey: rootKeys.privateKey, ca: true, validDays: 3650 });
  const rootPem = forge.pki.certificateToPem(rootCa);

  const adminKeys = keyPair();
  const adminCert = certificate({
    subject: [{ name: 'commonName', value: 'system:admin' }, { name: 'organizationName', value: 'system:masters' }],
    issuer: { cert: rootCa, key: rootKeys.privateKey },
    publicKey: adminKeys.publicKey,
    signingKey: rootKeys.privateKey,
    ca: false,
    validDays: 3650,
  });

  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: `https://api.${clusterDomain}:6443`, 'certificate-authority-data': Buffer.from(rootPem).toString('base64') } }],
    users: [{
      name: 'admin',
      user: {
        'client-certificate-data': Buffer.from(forge.pki.certificateToPem(adminCert)).toString('base64'),
        'client-key-data': Buffer.from(forge.pki.privateKeyToPem(adminKeys.privateKey)).toString('base64'),
      },
    }],
    contexts: [{ name: 'admin', context: { cluster: name, user: 'admin' } }],
    'current-context': 'admin',
    preferences: {},
  };
  const kubeconfigYaml = YAML.stringify(kubeconfig);
  const password = kubeadminPassword();

  const file = (path: string, contents: string, mode = 0o644) => ({ path, mode, overwrite: true, contents: { source: dataUrl(contents) } });
  const bootstrap = {
    ignition: { version: '3.2.0' },
    passwd: config.sshKey ? { users: [{ name: 'core', sshAuthorizedKeys: [config.sshKey.trim()] }] } : {},
    storage: {
      files: [
        file('/etc/motd', `This node was prepared by the ${SIMULATED_INSTALLER_NAME} of assisted-cloud: it cannot run OpenShift.\n`),
        file('/opt/openshift/tls/root-ca.crt', rootPem),
        file('/opt/openshift/auth/kubeconfig', kubeconfigYaml, 0o600),
        ...Object.entries(input.manifests).map(([relative, contents]) => file(`/opt/openshift/${relative}`, contents)),
      ],
    },
    systemd: {
      units: [{
        name: 'bootkube.service',
        enabled: true,
        contents: '[Unit]\nDescription=Bootstrap a Kubernetes cluster (simulated: prints a notice and exits)\n\n[Service]\nType=oneshot\nExecStart=/usr/bin/echo "simulated bootstrap: no release payload"\n\n[Install]\nWantedBy=multi-user.target\n',
      }],
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
