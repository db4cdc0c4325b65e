import type { Organisation } from '../domain/entities.js';
import type { Clock } from '../ports/clock.js';
import { storedOrCreated, type Store } from '../ports/store.js';

/** Creates the organisation unless it exists; safe to call from several processes at once. */
export async function ensureOrganisation(
  deps: { store: Store; clock: Clock },
  orgId: string,
  name: string,
): Promise<{ organisation: Organisation; created: boolean }> {
  const { record: organisation, created } = await storedOrCreated(deps.store.organisations, { orgId }, () => ({ orgId, name, createdAt: deps.clock.now().toISOString() }));
  return { organisation, created };
}
