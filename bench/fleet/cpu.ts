/**
 * Where a fleet run's CPU goes, read from the kernel (/proc) and from the local runtime's function
 * instances (each thread's CPU time, reported with its answers): the API, the install workflow's functions, the other
 * functions, the runtime's own thread (gateway, ASL interpreter, stream poller, S3 and DNS
 * stand-ins), the installer tasks (processes started by the runtime's task launcher, counted as
 * it reaps them, with the launcher's own), DynamoDB
 * Local (the java process), and the customer (automation, CLI runs, SIMULATED hosts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { LocalFunctions } from '../../bin/local/functions.js';

/** Linux's USER_HZ: /proc times are in these ticks. */
const TICKS_PER_SECOND = 100;

interface ProcTimes {
  /** The process's own CPU seconds (user + system). */
  own: number;
  /** CPU seconds of its children that have ended and been waited for. */
  children: number;
  ppid: number;
  name: string;
}

function procTimes(pid: number | string): ProcTimes | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
    const ticks = (i: number) => Number(fields[i]) / TICKS_PER_SECOND;
    return { own: ticks(11) + ticks(12), children: ticks(13) + ticks(14), ppid: Number(fields[1]), name };
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Every live process under `root`, by pid. */
function descendants(root: number): Map<number, ProcTimes> {
  const all = new Map<number, ProcTimes>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const times = procTimes(entry);
    if (times) all.set(Number(entry), times);
  }
  const found = new Map<number, ProcTimes>();
  const walk = (pid: number) => {
    for (const [child, times] of all) {
      if (times.ppid !== pid || found.has(child)) continue;
      found.set(child, times);
      walk(child);
    }
  };
  walk(root);
  return found;
}

const WORKFLOW_FUNCTIONS = /^Install/;

function functionGroup(name: string): string {
  if (name === 'Api') return 'API (Api function)';
  if (WORKFLOW_FUNCTIONS.test(name)) return 'install workflow functions';
  if (name === 'HostChanges') return 'stream consumer (HostChanges)';
  if (name === 'HostMonitor') return 'host monitor';
  return 'other functions';
}

interface Reading {
  processOwn: number;
  children: number;
  dynamodb: number;
  customer: number;
  functions: Record<string, number>;
}

export class CpuMeter {
  private customerPid: number | undefined;
  private customerLast = 0;
  private first: Reading | undefined;
  private sampling: NodeJS.Timeout | undefined;

  constructor(private readonly functions: LocalFunctions) {}

  watchCustomer(pid: number): void {
    this.customerPid = pid;
  }

  /** Once the customer has ended it is read no more: its last reading is kept. */
  private readCustomer(): void {
    if (this.customerPid === undefined) return;
    const customer = procTimes(this.customerPid);
    if (customer) this.customerLast = customer.own + customer.children;
  }

  private read(): Reading {
    const self = procTimes('self')!;
    // A customer that has ended and been reaped is in this process's children's times too.
    const customerReaped = this.customerPid !== undefined && procTimes(this.customerPid) === undefined;
    const processes = [...descendants(process.pid)];
    const java = processes.find(([, times]) => times.name === 'java')?.[1];
    const launcher = processes.find(([pid]) => commandLine(pid).includes('task-launcher.mjs'))?.[1];
    this.readCustomer();
    const functions: Record<string, number> = {};
    for (const [name, ms] of Object.entries(this.functions.cpuMs())) functions[functionGroup(name)] = (functions[functionGroup(name)] ?? 0) + ms / 1000;
    const tasks = launcher ? launcher.own + launcher.children : 0;
    return {
      processOwn: self.own,
      children: self.children - (customerReaped ? this.customerLast : 0) + tasks,
      dynamodb: java?.own ?? 0,
      customer: this.customerLast,
      functions,
    };
  }

  start(): void {
    this.first = this.read();
    // The customer process is read while it lives: its times vanish with it.
    this.sampling = setInterval(() => this.readCustomer(), 2_000);
    this.sampling.unref();
  }

  /** CPU seconds, by where they went, while `work` runs; `progress()` is printed every 30 s meanwhile. */
  async during(work: Promise<void>, progress: () => string): Promise<Record<string, number>> {
    const printing = setInterval(() => console.log(progress()), 30_000);
    this.start();
    try {
      await work;
    } finally {
      clearInterval(printing);
    }
    return this.stop();
  }

  /** CPU seconds since start(), by where they went. */
  stop(): Record<string, number> {
    clearInterval(this.sampling);
    const last = this.read();
    const first = this.first!;
    const byFunction = Object.fromEntries(Object.entries(last.functions).map(([group, s]) => [group, s - (first.functions[group] ?? 0)]));
    const inFunctions = Object.values(byFunction).reduce((sum, s) => sum + s, 0);
    return {
      ...byFunction,
      'runtime thread (gateway, ASL, streams, S3, DNS)': Math.max(0, last.processOwn - first.processOwn - inFunctions),
      'installer tasks (processes)': last.children - first.children,
      'DynamoDB Local': last.dynamodb - first.dynamodb,
      'customer (automation, CLI, SIMULATED hosts)': last.customer - first.customer,
    };
  }
}

export function cpuSplit(perInstall: Record<string, number>): string {
  const service = Object.entries(perInstall)
    .filter(([where]) => !where.startsWith('customer'))
    .reduce((sum, [, s]) => sum + s, 0);
  return [
    ...Object.entries(perInstall).map(([where, s]) => `  ${where.padEnd(50)}${s.toFixed(3).padStart(9)} s`),
    `  ${'service in all (all but the customer)'.padEnd(50)}${service.toFixed(3).padStart(9)} s`,
  ].join('\n');
}
