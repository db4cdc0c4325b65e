/**
 * Leader election through a coordination.k8s.io Lease, as Kubernetes controllers do: the holder
 * renews the lease every third of its duration; another candidate takes it over only once the
 * holder has not renewed it for a whole duration. Every write carries the resourceVersion read, so
 * two candidates racing for an expired lease cannot both win (the second gets a 409).
 */
import type { V1Lease } from '@kubernetes/client-node';
import { isConflict, kubeFailure, type Kube } from './kube.js';

export interface LeaderOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds: number;
  log: (message: string) => void;
}

const microTime = (date: Date) => date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/** Whether a lease held by someone else has run out at `now`. */
export function leaseExpired(lease: Pick<V1Lease, 'spec'>, now: Date): boolean {
  const spec = lease.spec ?? {};
  if (!spec.holderIdentity) return true;
  const renewed = spec.renewTime ? new Date(spec.renewTime as unknown as string).getTime() : 0;
  return renewed + (spec.leaseDurationSeconds ?? 15) * 1000 < now.getTime();
}

export class LeaderElector {
  private renewTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly kube: Kube,
    private readonly options: LeaderOptions,
  ) {}

  /** One attempt to hold the lease; true when this process holds it afterwards. */
  async tryAcquireOrRenew(now = new Date()): Promise<boolean> {
    const { namespace, name, identity, leaseDurationSeconds } = this.options;
    const lease = await this.kube.lease(namespace, name);
    const stamp = microTime(now) as unknown as Date;
    if (!lease) {
      try {
        await this.kube.coordination.createNamespacedLease({
          namespace,
          body: {
            metadata: { name, namespace },
            spec: { holderIdentity: identity, leaseDurationSeconds, acquireTime: stamp, renewTime: stamp, leaseTransitions: 0 },
          },
        });
        return true;
      } catch (error) {
        if (isConflict(error)) return false;
        throw error;
      }
    }
    const holder = lease.spec?.holderIdentity;
    if (holder !== identity && !leaseExpired(lease, now)) return false;
    const takingOver = holder !== identity;
    try {
      await this.kube.coordination.replaceNamespacedLease({
        namespace,
        name,
        body: {
          metadata: { name, namespace, resourceVersion: lease.metadata?.resourceVersion },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds,
            acquireTime: takingOver ? stamp : (lease.spec?.acquireTime ?? stamp),
            renewTime: stamp,
            leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + (takingOver ? 1 : 0),
          },
        },
      });
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw error;
    }
  }

  /** Waits until this process leads (bounded by the signal), then keeps renewing; onLost is called if renewal fails. */
  async lead(signal: AbortSignal, onLost: (reason: string) => void): Promise<boolean> {
    const retryMs = Math.max(500, (this.options.leaseDurationSeconds * 1000) / 5);
    let announced = false;
    while (!signal.aborted) {
      try {
        if (await this.tryAcquireOrRenew()) break;
      } catch (error) {
        this.options.log(`leader election: ${kubeFailure(error)}`);
      }
      if (!announced) {
        this.options.log(`waiting for lease ${this.options.namespace}/${this.options.name} (held by another controller)`);
        announced = true;
      }
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
    if (signal.aborted) return false;
    this.options.log(`leading as ${this.options.identity} (lease ${this.options.namespace}/${this.options.name})`);
    let lastRenewed = Date.now();
    const renewEvery = (this.options.leaseDurationSeconds * 1000) / 3;
    const renew = async () => {
      if (this.stopped) return;
      try {
        if (await this.tryAcquireOrRenew()) lastRenewed = Date.now();
        else return onLost('another controller holds the lease');
      } catch (error) {
        // A failed renewal is survivable until the lease would have run out.
        if (Date.now() - lastRenewed > this.options.leaseDurationSeconds * 1000) return onLost(`cannot renew the lease: ${kubeFailure(error)}`);
      }
      this.renewTimer = setTimeout(() => void renew(), renewEvery);
    };
    this.renewTimer = setTimeout(() => void renew(), renewEvery);
    return true;
  }

  /** Stops renewing and gives the lease up, so a standby takes over at once. */
  async release(): Promise<void> {
    this.stopped = true;
    if (this.renewTimer) clearTimeout(this.renewTimer);
    try {
      const lease = await this.kube.lease(this.options.namespace, this.options.name);
      if (lease?.spec?.holderIdentity !== this.options.identity) return;
      await this.kube.coordination.replaceNamespacedLease({
        namespace: this.options.namespace,
        name: this.options.name,
        body: {
          metadata: { name: this.options.name, namespace: this.options.namespace, resourceVersion: lease.metadata?.resourceVersion },
          spec: { ...lease.spec, holderIdentity: undefined, renewTime: undefined },
        },
      });
    } catch {
      // Best effort: the lease runs out by itself.
    }
  }
}
