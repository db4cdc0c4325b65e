/** Address arithmetic the checks need, on top of the ip-address library. */
import { Address4, Address6 } from 'ip-address';

export type Family = 4 | 6;

/** The bare address of "ip" or "ip/len". */
export const bareAddress = (text: string) => text.split('/')[0]?.trim() ?? '';

export function familyOf(address: string): Family | undefined {
  const bare = bareAddress(address);
  if (Address4.isValid(bare)) return 4;
  if (Address6.isValid(bare)) return 6;
  return undefined;
}

/** Whether `address` lies in the network of the interface address `cidr` (e.g. 10.0.0.5/24). */
export function sameSubnet(cidr: string, address: string): boolean {
  try {
    const family = familyOf(cidr);
    if (family !== familyOf(address)) return false;
    if (family === 4) return new Address4(bareAddress(address)).isInSubnet(new Address4(cidr));
    if (family === 6) return new Address6(bareAddress(address)).isInSubnet(new Address6(cidr));
  } catch {
    return false;
  }
  return false;
}

export const ipv4ToNumber = (address: string) => address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
export const numberToIpv4 = (value: number) => [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');

/** A canonical IPv4 network ("192.168.1.0/24"); throws when the host bits are not zero or it is not IPv4. */
export function parseIpv4Network(text: string): { start: number; prefix: number; size: number } {
  const match = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(text.trim());
  if (!match?.[1] || !match[2] || !Address4.isValid(match[1])) throw new Error(`${text} is not an IPv4 network in CIDR notation`);
  const prefix = Number(match[2]);
  if (prefix > 32) throw new Error(`${text} has a prefix longer than 32`);
  const size = 2 ** (32 - prefix);
  const start = ipv4ToNumber(match[1]);
  if (start % size !== 0) throw new Error(`${text} is not canonical (host bits are set)`);
  return { start, prefix, size };
}
