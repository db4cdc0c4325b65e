/**
 * The cluster state machine: upstream's transition table as ordered data (cluster-state-rules.ts)
 * and `transitionCluster` to run one trigger against it, plus the success rule and the progress bar
 * it depends on. First matching rule wins; no match is an explicit NotAllowed (a 409 for the API).
 * Pure: the caller persists the result and emits its events.
 */
import { clusterFacts, type ClusterStatus, type ClusterTransitionContext, type ClusterTrigger } from './cluster-facts.js';
import { CLUSTER_RULES, type ClusterEffect, type ClusterRule } from './cluster-state-rules.js';
import { assertUniqueRuleIds, findRule, notAllowed, STAY, type EventIntent, type NotAllowed, type Transition } from '../core/state-rules.js';

export * from './cluster-facts.js';
export * from './cluster-hosts.js';
export { CLUSTER_STATUS_INFO, PREPARATION_TIMEOUT_REASON, type ClusterEffect, type ClusterRule } from './cluster-state-rules.js';
export { isNotAllowed, type EventIntent, type NotAllowed } from '../core/state-rules.js';

export { CLUSTER_RULES };
/** Rule ids in table order (checked unique at load). */
export const CLUSTER_RULE_IDS: readonly string[] = assertUniqueRuleIds(CLUSTER_RULES);

export type ClusterTransition = Transition<ClusterStatus, ClusterStatus, ClusterEffect>;

export type ClusterTransitionResult = ClusterTransition | NotAllowed;

/** Statuses that end an installation attempt: install_completed_at is stamped on entering them. */
const COMPLETION_STATUSES: readonly ClusterStatus[] = ['installed', 'error', 'cancelled'];

export function transitionCluster(cluster: { status: ClusterStatus }, trigger: ClusterTrigger, context: ClusterTransitionContext): ClusterTransitionResult {
  const from = cluster.status;
  const facts = clusterFacts(from, context);
  const rule: ClusterRule | undefined = findRule(CLUSTER_RULES, trigger, from, facts);
  if (!rule) return notAllowed(trigger, from, `${trigger} is not allowed for a cluster in status ${from}`);

  const status = rule.to === STAY ? from : rule.to;
  const currentInfo = context.statusInfo ?? '';
  const statusInfo = rule.statusInfo ? rule.statusInfo(facts) : currentInfo;
  const statusChanged = status !== from;
  const effects: ClusterEffect[] = [...(rule.effects ? rule.effects(facts) : [])];
  if (statusChanged && COMPLETION_STATUSES.includes(status)) effects.push('install-completed');
  const ruleEvents = rule.events ? rule.events(facts, statusInfo) : [];
  const events: EventIntent[] = [
    ...(statusChanged ? [{ name: 'cluster_status_updated', props: { cluster_status: status, status_info: statusInfo } }] : []),
    ...ruleEvents,
  ];
  const event = ruleEvents[0];
  return {
    ruleId: rule.id,
    from,
    status,
    statusInfo,
    changed: statusChanged || statusInfo !== currentInfo || effects.length > 0,
    ...(event ? { event } : {}),
    events,
    effects,
  };
}
