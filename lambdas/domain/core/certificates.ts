/** Reading X.509 certificates out of PEM text, for the trust bundles and the installer's CAs. Pure. */
import { X509Certificate } from 'node:crypto';

/** The CERTIFICATE blocks of a PEM text, in order (other block types are not matched). */
export const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Whether one PEM block parses as an X.509 certificate. */
export function isX509Certificate(block: string): boolean {
  try {
    new X509Certificate(block);
    return true;
  } catch {
    return false;
  }
}
