/**
 * The router (ingress) CA a new cluster's ingress operator creates, which the controller hands to the
 * service so the final kubeconfig trusts *.apps. The SIMULATED controller has no cluster to read it
 * from, so it makes a real self-signed CA of the same shape (CN ingress-operator@<unix time>).
 */
// tsyringe, which @peculiar/x509 registers its algorithms with, needs the Reflect metadata API first.
import 'reflect-metadata';
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

const VALIDITY_DAYS = 730;
const RSA_SHA256: webcrypto.RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
};

export interface IngressCa {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
}

export function createIngressCa(now: Date = new Date()): Promise<IngressCa> {
  return selfSignedCa(`ingress-operator@${Math.floor(now.getTime() / 1000)}`, now);
}

/**
 * A self-signed RSA CA of this common name, valid from a minute before `now` for two years: the
 * shape of the CAs a cluster's operators make (the tests make the cluster's other CAs with it).
 */
export async function selfSignedCa(commonName: string, now: Date = new Date()): Promise<IngressCa> {
  const keys = await webcrypto.subtle.generateKey(RSA_SHA256, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned(
    {
      // A leading 0x01 keeps the DER integer positive and non-zero, as RFC 5280 wants.
      serialNumber: `01${randomBytes(15).toString('hex')}`,
      name: [{ CN: [commonName] }],
      notBefore: new Date(now.getTime() - 60_000),
      notAfter: new Date(now.getTime() + VALIDITY_DAYS * 86_400_000),
      keys,
      signingAlgorithm: RSA_SHA256,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
      ],
    },
    webcrypto,
  );
  const privateKeyPem = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  return { certificatePem: certificate.toString('pem'), privateKeyPem };
}
