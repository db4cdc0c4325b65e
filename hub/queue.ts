/**
 * A work queue of object keys, as controllers keep them: a key is queued once however often it is
 * added; a key being worked on is not handed to a second worker, and one added meanwhile runs again
 * after; a failure is retried after an exponential backoff per key (reset by a success); a success
 * may ask to be looked at again after a while (the periodic resync that follows the REST API).
 */
export interface QueueOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  workers?: number;
  log?: (message: string) => void;
  /** How a failure is told in the log (default: its message). */
  describe?: (error: unknown) => string;
}

export type Reconcile = (key: string) => Promise<{ requeueAfterMs?: number } | void>;

export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly order: string[] = [];
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private wake: (() => void) | undefined;
  private stopped = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(
    private readonly reconcile: Reconcile,
    private readonly options: QueueOptions = {},
  ) {
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 60_000;
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.order.push(key);
    this.wake?.();
  }

  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref?.();
    this.timers.set(key, timer);
  }

  /** The backoff after `failures` consecutive failures: base × 2^(n-1), capped. */
  static backoff(failures: number, baseMs: number, maxMs: number): number {
    return Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1));
  }

  get length(): number {
    return this.order.length;
  }

  /** Runs the workers until stop(). */
  async run(): Promise<void> {
    const workers = Array.from({ length: this.options.workers ?? 2 }, () => this.worker());
    await Promise.all(workers);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.wake?.();
  }

  private next(): string | undefined {
    const index = this.order.findIndex((key) => !this.running.has(key));
    if (index < 0) return undefined;
    const [key] = this.order.splice(index, 1);
    this.queued.delete(key!);
    return key;
  }

  private async worker(): Promise<void> {
    while (!this.stopped) {
      const key = this.next();
      if (!key) {
        await new Promise<void>((resolve) => {
          const previous = this.wake;
          this.wake = () => {
            this.wake = undefined;
            previous?.();
            resolve();
          };
        });
        continue;
      }
      this.running.add(key);
      let retryAfter: number | undefined;
      try {
        const result = await this.reconcile(key);
        this.failures.delete(key);
        retryAfter = result && result.requeueAfterMs !== undefined ? result.requeueAfterMs : undefined;
      } catch (error) {
        const failures = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, failures);
        retryAfter = WorkQueue.backoff(failures, this.baseDelayMs, this.maxDelayMs);
        const told = this.options.describe ? this.options.describe(error) : ((error as Error)?.message ?? String(error));
        this.options.log?.(`${key}: ${told} (attempt ${failures}, retrying in ${retryAfter} ms)`);
      } finally {
        this.running.delete(key);
      }
      if (this.dirty.delete(key)) this.add(key);
      else if (retryAfter !== undefined) this.addAfter(key, retryAfter);
    }
  }
}
