/**
 * The secret part of API tokens and invitation codes: random, shown once, stored as its SHA-256,
 * compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const newSecret = (): string => randomBytes(32).toString('base64url');

export const secretHash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(secretHash(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
