/**
 * A host's clock against the service's. The agent sends its clock with every poll; what the
 * cluster's clock check and the host's time-sync check care about is the offset (the reading less
 * the service's time when it was taken), which a steady clock keeps however often it polls.
 */
import type { Host } from '../core/entities.js';

/**
 * How far a host's clock may move against the service's between two check-ins before its cluster
 * is judged again at once: the clocks' spread the cluster checks is minutes wide
 * (MAX_CLOCK_DIFF_MINUTES), and the monitor's whole judgement (at least every 5 minutes) catches a
 * slower drift.
 */
export const CLOCK_NEWS_SECONDS = 30;

/** The host's clock against the service's, in seconds, as of its last check-in (its reading and when the service took it). */
function clockOffset(host: Pick<Host, 'attributes'>): number | undefined {
  const reading = host.attributes.timestamp;
  const takenAt = Date.parse(host.attributes.checked_in_at ?? '');
  return typeof reading === 'number' && Number.isFinite(takenAt) ? reading - takenAt / 1000 : undefined;
}

/**
 * Whether the host's clock moved against the service's: a check-in of a steady clock moves its
 * reading by the time between polls and its offset not at all, which no clock check can notice.
 */
export function clockMoved(before: Pick<Host, 'attributes'>, after: Pick<Host, 'attributes'>): boolean {
  if (before.attributes.timestamp === after.attributes.timestamp) return false;
  const [was, is] = [clockOffset(before), clockOffset(after)];
  return was === undefined || is === undefined || Math.abs(is - was) >= CLOCK_NEWS_SECONDS;
}
