/**
 * Wraps (does not replace) the host and cluster state machines so that a suite records which rule
 * answered from which status: `host:<rule>@<from>` and `cluster:<rule>@<from>`. Used from vi.mock
 * factories (the test's own thread) and from the wrappers function instances load instead of the
 * machines (recording-machines/), so it imports nothing of the service at run time.
 */
import type * as HostMachine from '../../lambdas/domain/host/host-state-machine.js';
import type * as ClusterMachine from '../../lambdas/domain/cluster/cluster-state-machine.js';
import { BroadcastChannel } from 'node:worker_threads';

/** Where function instances report the rules they answered (a BroadcastChannel reaches every thread of the process). */
export const RULES_CHANNEL = 'assisted-test-rules-answered';
let channel: InstanceType<typeof BroadcastChannel> | undefined;

/** In a function instance: tells the test's thread a rule answered. */
export function reportRule(pair: string): void {
  if (!channel) {
    channel = new BroadcastChannel(RULES_CHANNEL);
    (channel as unknown as { unref(): void }).unref();
  }
  channel.postMessage(pair);
}

/**
 * In the test's thread: every `<table>:<rule>@<from>` answered, by the wrapped machines of this
 * thread and (collectReportedRules) by the runtime's instances.
 */
export const answered: string[] = [];

/** In the test's thread: every rule the runtime's instances report goes into `answered`. */
export function collectReportedRules(answered: string[]): { close(): void } {
  const listener = new BroadcastChannel(RULES_CHANNEL);
  listener.onmessage = (message) => answered.push((message as { data: string }).data);
  (listener as unknown as { unref(): void }).unref();
  return { close: () => listener.close() };
}

/** The module every instance of a rule-recording runtime imports first (RuntimeOptions.instrumentation). */
export const RULE_RECORDING_INSTRUMENTATION = new URL('./rule-recorder-instrumentation.mjs', import.meta.url).href;

type Answered = { push(pair: string): unknown };

export function recordingHostMachine(actual: typeof HostMachine, answered: Answered): typeof HostMachine {
  return {
    ...actual,
    transitionHost: (...args: Parameters<typeof actual.transitionHost>) => {
      const result = actual.transitionHost(...args);
      if (result.ruleId) answered.push(`host:${result.ruleId}@${args[0].status ?? ''}`);
      return result;
    },
  };
}

export function recordingClusterMachine(actual: typeof ClusterMachine, answered: Answered): typeof ClusterMachine {
  return {
    ...actual,
    transitionCluster: (...args: Parameters<typeof actual.transitionCluster>) => {
      const result = actual.transitionCluster(...args);
      if (result.ruleId) answered.push(`cluster:${result.ruleId}@${args[0].status}`);
      return result;
    },
  };
}
