/**
 * The simulated L2/L3 network a fleet's hosts share: one IPv4 subnet with a gateway at its first
 * address and the fleet's hosts from an offset on. An address answers (ping, ARP, nmap) exactly when
 * a fleet host or the gateway holds it, so every host's checks agree with every other's.
 */
import { Address4 } from 'ip-address';

export interface NetworkMember {
  readonly hostId: string;
  readonly hostname: string;
  /** MAC of the NIC holding `address`. */
  readonly mac: string;
  readonly macs: readonly string[];
  readonly address: string;
}

/** Upstream's free_addresses stops after this many addresses. */
export const FREE_ADDRESS_LIMIT = 8000;

export class FleetNetwork {
  readonly cidr: string;
  readonly prefixLength: number;
  readonly gateway: string;
  private readonly subnet: Address4;
  private readonly first: bigint;
  private readonly last: bigint;
  private readonly byAddress = new Map<string, NetworkMember>();

  constructor(
    cidr: string,
    private readonly firstHostOffset = 10,
  ) {
    if (!Address4.isValid(cidr) || !cidr.includes('/')) throw new Error(`fleet network must be an IPv4 CIDR, got ${JSON.stringify(cidr)}`);
    this.subnet = new Address4(cidr);
    this.prefixLength = this.subnet.subnetMask;
    if (this.prefixLength > 29) throw new Error(`fleet network ${cidr} is too small; use a /29 or larger`);
    this.first = this.subnet.startAddress().bigInt();
    this.last = this.subnet.endAddress().bigInt();
    this.cidr = `${this.subnet.startAddress().correctForm()}/${this.prefixLength}`;
    this.gateway = Address4.fromBigInt(this.first + 1n).correctForm();
  }

  /** How many hosts fit between the offset and the broadcast address. */
  get capacity(): number {
    return Number(this.last - this.first - BigInt(this.firstHostOffset));
  }

  addressOf(index: number): string {
    if (index < 0 || index >= this.capacity)
      throw new Error(`fleet network ${this.cidr} holds ${this.capacity} hosts from offset ${this.firstHostOffset}; host ${index} does not fit`);
    return Address4.fromBigInt(this.first + BigInt(this.firstHostOffset + index)).correctForm();
  }

  add(member: NetworkMember): void {
    this.byAddress.set(member.address, member);
  }

  memberAt(address: string): NetworkMember | undefined {
    return this.byAddress.get(address);
  }

  /** Whether anything answers at this address: a fleet host or the gateway. */
  answers(address: string): boolean {
    return address === this.gateway || this.byAddress.has(address);
  }

  contains(address: string): boolean {
    return Address4.isValid(address) && new Address4(address).isInSubnet(this.subnet);
  }

  /** Addresses of `cidr` nothing answers at (network and broadcast addresses excluded), at most `limit`. */
  freeAddresses(cidr: string, limit = FREE_ADDRESS_LIMIT): string[] {
    const network = new Address4(cidr);
    let start = network.startAddress().bigInt();
    let end = network.endAddress().bigInt();
    if (network.subnetMask <= 30) {
      start += 1n;
      end -= 1n;
    }
    const free: string[] = [];
    for (let value = start; value <= end && free.length < limit; value++) {
      const address = Address4.fromBigInt(value).correctForm();
      if (!this.answers(address)) free.push(address);
    }
    return free;
  }
}
