/**
 * What a host transition's effects write on the host besides status and status_info. Pure: the
 * refresh, the registration and the bind and unbind requests all apply them the same way.
 */
import type { Host } from '../core/entities.js';
import type { HostEffect } from './host-state-machine.js';

export function applyHostEffects(next: Host, effects: readonly HostEffect[], now: string, options: { clusterId?: string } = {}): void {
  const attributes = next.attributes;
  for (const effect of effects) {
    switch (effect) {
      case 'images-status-cleared':
        delete attributes.images_status;
        break;
      case 'logs-reset':
        delete attributes.logs_info;
        delete attributes.logs_started_at;
        delete attributes.logs_collected_at;
        break;
      case 'connection-timed-out':
        attributes.connection_timed_out = true;
        break;
      case 'connection-restored':
        attributes.connection_timed_out = false;
        break;
      case 'stage-timed-out':
        attributes.progress = { ...((attributes.progress as object | undefined) ?? {}), stage_timed_out: true };
        break;
      case 'stage-updated-at-refreshed':
        attributes.progress = { ...((attributes.progress as object | undefined) ?? {}), stage_updated_at: now };
        break;
      case 'logs-timed-out':
        attributes.logs_info = 'timeout';
        break;
      case 'media-disconnected':
        attributes.media_status = 'disconnected';
        break;
      case 'rediscover':
        // A new boot, maybe on changed hardware (upstream resets the inventory too): what the last
        // one reported about the host, an installation or its logs no longer holds. The agent's
        // first step sends the inventory again.
        for (const field of [
          'inventory',
          'images_status',
          'ntp_sources',
          'bootstrap',
          'progress',
          'install_step_sent_at',
          'step_errors',
          'logs_info',
          'logs_started_at',
          'logs_collected_at',
        ])
          delete attributes[field];
        break;
      case 'cluster-bound':
        if (options.clusterId) next.clusterId = options.clusterId;
        // Upstream's bind resets what the agent reports again once it reboots into the cluster's
        // discovery: the inventory, the bootstrap mark, the images' status and the progress.
        for (const field of ['inventory', 'bootstrap', 'images_status', 'progress']) delete attributes[field];
        break;
      case 'cluster-unbound':
        delete next.clusterId;
        for (const field of [
          'inventory',
          'bootstrap',
          'progress',
          'installation_disk_id',
          'installation_disk_path',
          'connectivity',
          'free_addresses',
          'domain_name_resolutions',
          'images_status',
          'disks_info',
        ])
          delete attributes[field];
        // Back in the pool as registered there: auto-assign (upstream's unbind resets the role).
        attributes.role = 'auto-assign';
        attributes.suggested_role = 'auto-assign';
        break;
      default:
        // cluster-preparation-reset concerns the cluster, and is deliberately not applied: the
        // installation workflow writes its preparation result once (see registerHost).
        break;
    }
  }
}
