import type { Organisation } from '../domain/entities.js';
import type { Clock } from '../ports/clock.js';
import { ConcurrentModificationError, type Store } from '../ports/store.js';

/** Creates the organisation unless it exists; safe to call from several processes at once. */
export async function ensureOrganisation(
  deps: { store: Store; clock: Clock },
  orgId: string,
  name: string,
): Promise<{ organisation: Organisation; created: boolean }> {
  const existing = await deps.store.organisations.get({ orgId });
  if (existing) return { organisation: existing, created: false };
  try {
    const organisation = await deps.store.organisations.create({ orgId, name, createdAt: deps.clock.now().toISOString() });
    return { organisation, created: true };
  } catch (error) {
    if (!(error instanceof ConcurrentModificationError)) throw error;
    return { organisation: (await deps.store.organisations.get({ orgId }))!, created: false };
  }
}
