/**
 * The long checks an agent runs for minutes, handed out once until answered, and the marks on the
 * host that say so. Pure.
 */
import { isJsonObject, recordOf, text } from '../../../contracts/json-shapes.js';
import { CONNECTIVITY_RETRY_MS } from './step-types.js';

/**
 * Checks handed out once until answered: the agent runs a long check for minutes (an address
 * scan, fio, image pulls, log gathering, an upgrade), and upstream's agent guards against a
 * second run only inside its containers; a connectivity check makes it ping every peer, and one
 * handed while the last is still replying is dropped. One handed out is not handed again until
 * answered or until its window passes. The marks are stored on the host (`long_checks_handed_at`)
 * and claimed by a conditional write, so that two polls answered by two instances never both
 * hand the same check.
 */
export const LONG_CHECK_WINDOW_MS = 60_000;
export const HANDED_ONCE_WINDOW_MS: Readonly<Record<string, number>> = {
  'free-network-addresses': LONG_CHECK_WINDOW_MS,
  'installation-disk-speed-check': LONG_CHECK_WINDOW_MS,
  'container-image-availability': LONG_CHECK_WINDOW_MS,
  'logs-gather': LONG_CHECK_WINDOW_MS,
  'upgrade-agent': LONG_CHECK_WINDOW_MS,
  'connectivity-check': CONNECTIVITY_RETRY_MS,
};
export const LONG_CHECKS: ReadonlySet<string> = new Set(Object.keys(HANDED_ONCE_WINDOW_MS));
export const LONG_CHECKS_HANDED_AT = 'long_checks_handed_at';
/** The stored marks by check type (ISO times). */
const readMarks = recordOf(text);

/** Whether a check of this type handed out is still awaiting its answer (its mark is inside its window). */
export function awaitingAnswer(stored: unknown, type: string, now: Date): boolean {
  const mark = isJsonObject(stored) ? stored[type] : undefined;
  const at = Date.parse(typeof mark === 'string' ? mark : '');
  return Number.isFinite(at) && at <= now.getTime() && now.getTime() - at < (HANDED_ONCE_WINDOW_MS[type] ?? LONG_CHECK_WINDOW_MS);
}

/**
 * The claim a poll stores to hand a check of this type out: its mark, taken only where the stored
 * mark is absent, older than `staleBefore` (its window passed) or later than `at` (a clock that
 * went back): the condition of awaitingAnswer, as a store can test it in one conditional write.
 */
export function longCheckClaim(type: string, now: Date): { at: string; staleBefore: string } {
  return { at: now.toISOString(), staleBefore: new Date(now.getTime() - (HANDED_ONCE_WINDOW_MS[type] ?? LONG_CHECK_WINDOW_MS) + 1).toISOString() };
}

/** Which of the wanted checks this poll may hand out, and the marks to store with them. */
export function claimLongChecks(stored: unknown, wanted: readonly string[], now: Date): { claimed: string[]; marks: Record<string, string> } {
  const marks = { ...(readMarks(stored) ?? {}) };
  const claimed = wanted.filter((type) => !awaitingAnswer(marks, type, now));
  for (const type of claimed) marks[type] = now.toISOString();
  return { claimed, marks };
}
