/**
 * The host state machine: upstream's transition table (bound and pool hosts) as ordered data, and
 * `transitionHost` to run one trigger against it. First matching rule wins; no match is an explicit
 * NotAllowed (a 409 for the API). Pure: the caller persists the result and emits its events.
 *
 * The caller fills the context before the trigger: for HostProgressChanged, `progress` already holds
 * the stage just reported (upstream stores it, then runs the machine; see checkHostProgress); for
 * RefreshHost, `validations` summarises this refresh's validation results.
 */
import { hostFacts, type HostFacts, type HostTransitionContext } from './host-facts.js';
import { HOST_REFRESH_RULES } from './host-refresh-rules.js';
import { HOST_REQUEST_RULES, type HostEffect, type HostRule } from './host-state-rules.js';
import type { HostSourceStatus, HostStatus, HostTrigger } from './host-states.js';
import { assertUniqueRuleIds, findRule, notAllowed, STAY, type EventIntent, type NotAllowed, type Transition } from '../core/state-rules.js';

export * from './host-states.js';
export type { HostFacts, HostTimeouts, HostTransitionContext, HostValidationSummary, InstallationDisk, ValidationResult } from './host-facts.js';
export {
  HOST_TIMEOUTS,
  hostStageTimeoutMs,
  isHostConnected,
  MIN_HARDWARE_VALIDATIONS,
  POOL_HARDWARE_VALIDATIONS,
  summarizeHostValidations,
} from './host-facts.js';
export { SUFFICIENT_FOR_INSTALL_VALIDATIONS } from '../core/validation-ids.js';
export type { HostEffect, HostRule } from './host-state-rules.js';
export { HOST_STATUS_INFO } from './host-status-info.js';
export { isNotAllowed, type EventIntent, type NotAllowed } from '../core/state-rules.js';

/** Every rule, request-driven then monitor-driven; rules of different triggers never compete. */
export const HOST_RULES: readonly HostRule[] = [...HOST_REQUEST_RULES, ...HOST_REFRESH_RULES];
/** Rule ids in table order (also checked unique at load, so a copy-paste slip fails every test). */
export const HOST_RULE_IDS: readonly string[] = assertUniqueRuleIds(HOST_RULES);

export type HostTransition = Transition<HostSourceStatus, HostStatus, HostEffect>;

export type HostTransitionResult = HostTransition | NotAllowed;

/** Severity of host_status_updated by the new status, as upstream grades it. */
export function hostStatusEventSeverity(status: HostStatus): 'info' | 'warning' | 'error' {
  if (status === 'error') return 'error';
  if (status === 'disconnected' || status === 'insufficient' || status === 'installing-pending-user-action') return 'warning';
  return 'info';
}

function ruleEvent(rule: HostRule, facts: HostFacts): EventIntent | undefined {
  if (rule.event === undefined) return undefined;
  if (typeof rule.event === 'string') return { name: rule.event, props: { host_name: facts.ctx.hostName } };
  return rule.event(facts);
}

function describe(status: HostSourceStatus): string {
  return status === '' ? 'a host that is not registered yet' : `a host in status ${status}`;
}

/** The status a rule that stays keeps: the pseudo-source '' appears only in rules with an explicit destination. */
function stayingStatus(from: HostSourceStatus, ruleId: string): HostStatus {
  if (from === '') throw new Error(`host rule ${ruleId} keeps the status of a host that is not registered yet`);
  return from;
}

/**
 * Runs `trigger` for a host in `host.status` (undefined or '' for a host registering for the first time).
 */
export function transitionHost(host: { status?: HostStatus | '' }, trigger: HostTrigger, context: HostTransitionContext): HostTransitionResult {
  const from: HostSourceStatus = host.status ?? '';
  const facts = hostFacts(from, context);
  const rule = findRule(HOST_RULES, trigger, from, facts);
  if (!rule) return notAllowed(trigger, from, `${trigger} is not allowed for ${describe(from)} (host ${context.hostName})`);
  if (rule.refuse) return notAllowed(trigger, from, rule.refuse.reason(facts), rule.refuse.httpStatus, rule.id);

  const status = rule.to === STAY ? stayingStatus(from, rule.id) : rule.to;
  const currentInfo = context.statusInfo ?? '';
  const statusInfo = rule.statusInfo ? rule.statusInfo(facts) : currentInfo;
  const effects = rule.effects ? rule.effects(facts) : [];
  const event = ruleEvent(rule, facts);
  const events: EventIntent[] = [];
  // A new host announces itself with host_registration_succeeded; upstream sends no status change for it.
  if (from !== '' && status !== from) {
    events.push({
      name: 'host_status_updated',
      props: {
        severity: hostStatusEventSeverity(status),
        host_name: context.hostName,
        src_status: from,
        new_status: status,
        info: statusInfo === '' ? '' : `(${statusInfo})`,
      },
    });
  }
  if (event) events.push(event);
  return {
    ruleId: rule.id,
    from,
    status,
    statusInfo,
    changed: status !== from || statusInfo !== currentInfo || effects.length > 0,
    ...(event ? { event } : {}),
    events,
    effects,
  };
}
