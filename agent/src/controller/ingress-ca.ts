/**
 * The router (ingress) CA a new cluster's ingress operator creates, which the controller hands to the
 * service so the final kubeconfig trusts *.apps. The SIMULATED controller has no cluster to read it
 * from, so it makes a real self-signed CA of the same shape (CN ingress-operator@<unix time>).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

const VALIDITY_DAYS = 730;

export interface IngressCa {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
}

export function createIngressCa(now: Date = new Date()): IngressCa {
  return selfSignedCa(`ingress-operator@${Math.floor(now.getTime() / 1000)}`, now);
}

/**
 * A self-signed RSA CA of this common name, valid from a minute before `now` for two years: the
 * shape of the CAs a cluster's operators make (the tests make the cluster's other CAs with it).
 */
export function selfSignedCa(commonName: string, now: Date = new Date()): IngressCa {
  // Node's native key generation: forge's pure-JS RSA takes seconds.
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKey);
  // A leading 0x01 keeps the DER integer positive and non-zero, as RFC 5280 wants.
  certificate.serialNumber = `01${randomBytes(15).toString('hex')}`;
  certificate.validity.notBefore = new Date(now.getTime() - 60_000);
  certificate.validity.notAfter = new Date(now.getTime() + VALIDITY_DAYS * 86_400_000);
  const subject = [{ name: 'commonName', value: commonName }];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', critical: true, keyCertSign: true, cRLSign: true, digitalSignature: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  certificate.sign(forge.pki.privateKeyFromPem(privateKey), forge.md.sha256.create());
  return { certificatePem: forge.pki.certificateToPem(certificate), privateKeyPem: privateKey };
}
