/**
 * Wraps (does not replace) the host and cluster state machines so that a suite records which rule
 * answered from which status: `host:<rule>@<from>` and `cluster:<rule>@<from>`. Used from vi.mock
 * factories, so it imports nothing of the service at run time.
 */
import type * as HostMachine from '../../lambdas/domain/host-state-machine.js';
import type * as ClusterMachine from '../../lambdas/domain/cluster-state-machine.js';

export function recordingHostMachine(actual: typeof HostMachine, answered: string[]): typeof HostMachine {
  return {
    ...actual,
    transitionHost: (...args: Parameters<typeof actual.transitionHost>) => {
      const result = actual.transitionHost(...args);
      if (result.ruleId) answered.push(`host:${result.ruleId}@${args[0].status ?? ''}`);
      return result;
    },
  };
}

export function recordingClusterMachine(actual: typeof ClusterMachine, answered: string[]): typeof ClusterMachine {
  return {
    ...actual,
    transitionCluster: (...args: Parameters<typeof actual.transitionCluster>) => {
      const result = actual.transitionCluster(...args);
      if (result.ruleId) answered.push(`cluster:${result.ruleId}@${args[0].status}`);
      return result;
    },
  };
}
