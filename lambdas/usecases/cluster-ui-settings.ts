/**
 * The UI's own per-cluster settings (upstream ui-settings): opaque text the console stores and
 * reads back (upstream's UI writes `AI_UI:` followed by JSON). The service never interprets it; it
 * only bounds its size.
 */
import { badRequest } from '../domain/core/errors.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { findCluster, stillThere } from './access.js';
import type { Principal } from './principal.js';

const MAX_UI_SETTINGS_BYTES = 64 * 1024;

export async function getClusterUiSettings(deps: { store: Store }, principal: Principal, clusterId: string): Promise<string> {
  const cluster = await findCluster(deps.store, principal, clusterId);
  return (cluster.attributes.ui_settings as string | undefined) ?? '';
}

export async function updateClusterUiSettings(
  deps: { store: Store; clock: Clock },
  principal: Principal,
  clusterId: string,
  settings: unknown,
): Promise<string> {
  // Upstream declares a JSON string; its UI sends the document itself. Both are stored as text.
  if (settings !== null && typeof settings === 'object') settings = JSON.stringify(settings);
  if (typeof settings !== 'string') throw badRequest('ui settings must be a JSON document (an object, or a JSON string holding one)');
  if (Buffer.byteLength(settings) > MAX_UI_SETTINGS_BYTES) throw badRequest(`ui settings are limited to ${MAX_UI_SETTINGS_BYTES} bytes`);
  await findCluster(deps.store, principal, clusterId);
  const now = deps.clock.now().toISOString();
  stillThere(
    await deps.store.clusters.mutate({ orgId: principal.orgId, clusterId }, (cluster) => ({
      ...cluster,
      attributes: { ...cluster.attributes, ui_settings: settings },
      updatedAt: now,
    })),
    `Cluster ${clusterId}`,
  );
  return settings;
}
