/**
 * Inputs every request that creates a cluster or an infra-env needs: a pull secret both services
 * accept and a real OpenSSH public key. Lives in bench/ because bench code may not import test/;
 * tests import it from here (through test/support/fixtures.ts).
 */
import { generateKeyPairSync } from 'node:crypto';

export const PULL_SECRET = JSON.stringify({
  auths: {
    'cloud.openshift.com': { auth: Buffer.from('tester:not-a-real-password').toString('base64'), email: 'tester@example.com' },
    'quay.io': { auth: Buffer.from('tester:also-not-real').toString('base64'), email: 'tester@example.com' },
  },
});

/**
 * The smallest pull secret the service accepts: what the measuring benches (cost, lifecycle, the
 * overheads) register with, so the record sizes they measure stay comparable from run to run.
 */
export const BENCH_PULL_SECRET = JSON.stringify({ auths: { 'cloud.openshift.com': { auth: Buffer.from('bench:bench').toString('base64') } } });

/** A real OpenSSH ed25519 public key line. */
export function sshPublicKey(comment = 'tester@example.com'): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const withLength = (data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, data]);
  };
  const blob = Buffer.concat([withLength(Buffer.from('ssh-ed25519')), withLength(raw)]);
  return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
}
