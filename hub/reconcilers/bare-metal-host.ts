/**
 * BareMetalHost: the InfraEnv's ISO as its image, its annotations into the matching Agent, and
 * detached once its host is installed.
 */
import type { Condition } from '../conditions.js';
import { AGENT, ANNOTATION, BARE_METAL_HOST, INFRA_ENV, isDeleting, LABEL } from '../objects.js';
import type { HubContext, Reconciled } from './context.js';

export async function reconcileBareMetalHost(ctx: HubContext, namespace: string, name: string): Reconciled {
  const bmh = ctx.cached(BARE_METAL_HOST, namespace, name);
  if (!bmh || isDeleting(bmh)) return;
  const infraEnvName = bmh.metadata.labels?.[LABEL.infraEnv];
  if (!infraEnvName) return;
  const infraEnv = ctx.cached(INFRA_ENV, namespace, infraEnvName);
  const mac = String(bmh.spec?.bootMACAddress ?? '').toLowerCase();
  const agent = mac
    ? ctx
        .all(AGENT, namespace)
        .find((candidate) => (candidate.status?.inventory?.interfaces ?? []).some((nic: { macAddress?: string }) => nic.macAddress?.toLowerCase() === mac))
    : undefined;
  const installed = agent?.status?.conditions?.some((c: Condition) => c.type === 'Installed' && c.status === 'True') === true;
  const annotations = bmh.metadata.annotations ?? {};
  if (installed) {
    // Installed: the host is the cluster's now; metal3 must not re-provision it.
    if (annotations[ANNOTATION.bmhDetached] === undefined)
      await ctx.kube.patch(BARE_METAL_HOST, namespace, name, { metadata: { annotations: { [ANNOTATION.bmhDetached]: 'assisted-service-controller' } } });
    return;
  }
  const iso = infraEnv?.status?.isoDownloadURL as string | undefined;
  if (
    iso &&
    (bmh.spec?.image?.url !== iso || bmh.spec?.image?.format !== 'live-iso' || bmh.spec?.online !== true || annotations['inspect.metal3.io'] !== 'disabled')
  ) {
    await ctx.kube.patch(BARE_METAL_HOST, namespace, name, {
      metadata: { annotations: { 'inspect.metal3.io': 'disabled' } },
      spec: { image: { url: iso, format: 'live-iso' }, online: true },
    });
  }
  if (!agent) return { requeueAfterMs: ctx.options.resyncMs };
  const wanted: Record<string, unknown> = {};
  const role = annotations[ANNOTATION.bmhRole];
  if (role && agent.spec?.role !== role) wanted.role = role;
  const hostname = annotations[ANNOTATION.bmhHostname];
  if (hostname && agent.spec?.hostname !== hostname) wanted.hostname = hostname;
  const installerArgs = annotations[ANNOTATION.bmhInstallerArgs];
  if (installerArgs !== undefined && agent.spec?.installerArgs !== installerArgs) wanted.installerArgs = installerArgs;
  const ignition = annotations[ANNOTATION.bmhIgnitionOverrides];
  if (ignition !== undefined && agent.spec?.ignitionConfigOverrides !== ignition) wanted.ignitionConfigOverrides = ignition;
  const disk = bmh.spec?.rootDeviceHints?.deviceName as string | undefined;
  if (disk && !agent.spec?.installation_disk_path && !agent.spec?.installation_disk_id) wanted.installation_disk_path = disk;
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(annotations))
    if (key.startsWith(ANNOTATION.bmhAgentLabelPrefix)) labels[key.slice(ANNOTATION.bmhAgentLabelPrefix.length)] = value;
  if (agent.metadata.labels?.[LABEL.bmh] !== name) labels[LABEL.bmh] = name;
  const labelsDiffer = Object.entries(labels).some(([key, value]) => agent.metadata.labels?.[key] !== value);
  if (Object.keys(wanted).length > 0 || labelsDiffer) {
    await ctx.kube.patch(AGENT, namespace, agent.metadata.name, {
      ...(labelsDiffer ? { metadata: { labels } } : {}),
      ...(Object.keys(wanted).length ? { spec: wanted } : {}),
    });
  }
  return { requeueAfterMs: ctx.options.resyncMs };
}
