/**
 * What an agent answers a step with, as upstream's swagger models it (openapi.yaml, typed in
 * api.ts): the envelopes (a step, the steps of a poll, a step reply, an installation progress
 * report) and the output document of every step whose output is JSON. Our agent builds each output
 * against its type (encodeStepOutput), and the service reads each with the readers below, so a
 * field renamed on either side no longer compiles. Pure; no I/O.
 */
import type { components } from './api.js';
import { finite, flag, listOf, oneOf, recordOf, remembered, shapeOf, text, type Reader } from './json-shapes.js';

type Schemas = components['schemas'];

export type StepType = Schemas['step-type'];
/** A step as the service hands it out: upstream's `step`, whose type and id the service always sets. */
export type Step = Required<Pick<Schemas['step'], 'step_type' | 'step_id'>> & Pick<Schemas['step'], 'args'>;
/** The answer to a poll for instructions. */
export type Steps = Omit<Schemas['steps'], 'instructions'> & { instructions?: Step[] };
/** What is posted back for one step: exit_code 0 (upstream leaves it out) with `output` is success. */
export type StepReply = Omit<Schemas['step-reply'], 'step_type'> & { step_type: StepType };
export type HostProgress = Schemas['host-progress'];

export type Inventory = Schemas['inventory'];
export type InventoryInterface = Schemas['interface'];
export type InventoryDisk = Schemas['disk'];
export type InventoryRoute = Schemas['route'];
export type ConnectivityReport = Schemas['connectivity-report'];
export type ConnectivityRemoteHost = Schemas['connectivity-remote-host'];
export type FreeNetworksAddresses = Schemas['free_networks_addresses'];
export type NtpSynchronizationResponse = Schemas['ntp_synchronization_response'];
export type DiskSpeedCheckResponse = Schemas['disk_speed_check_response'];
export type DomainResolutionResponse = Schemas['domain_resolution_response'];
export type ContainerImageAvailabilityResponse = Schemas['container_image_availability_response'];
export type ContainerImageAvailability = Schemas['container_image_availability'];
export type TangConnectivityResponse = Schemas['tang_connectivity_response'];
export type ApiVipConnectivityResponse = Schemas['api_vip_connectivity_response'];
export type VerifyVipsResponse = Schemas['verify_vips_response'];
export type VerifiedVip = Schemas['verified_vip'];
export type UpgradeAgentResponse = Schemas['upgrade_agent_response'];
export type DhcpAllocationResponse = Schemas['dhcp_allocation_response'];

/**
 * The JSON output of each step type that has one. logs-gather's is ours (upstream's agent answers
 * it with no document); the service stores nothing of it.
 */
export interface StepOutputs {
  inventory: Inventory;
  'connectivity-check': ConnectivityReport;
  'free-network-addresses': FreeNetworksAddresses;
  'ntp-synchronizer': NtpSynchronizationResponse;
  'installation-disk-speed-check': DiskSpeedCheckResponse;
  'domain-resolution': DomainResolutionResponse;
  'container-image-availability': ContainerImageAvailabilityResponse;
  'tang-connectivity-check': TangConnectivityResponse;
  'api-vip-connectivity-check': ApiVipConnectivityResponse;
  'verify-vips': VerifyVipsResponse;
  'upgrade-agent': UpgradeAgentResponse;
  'dhcp-lease-allocate': DhcpAllocationResponse;
  'logs-gather': { uploaded_bytes: number; files: string[] };
}
export type OutputStepType = keyof StepOutputs;

/** A step's output as it travels in StepReply.output. */
export function encodeStepOutput<T extends OutputStepType>(_stepType: T, output: StepOutputs[T]): string {
  return JSON.stringify(output);
}

// ---- readers (json-shapes.ts says how lenient they are) ---------------------------------------

const texts = listOf(text);

const readInterface = shapeOf<InventoryInterface>({
  ipv6_addresses: texts,
  vendor: text,
  name: text,
  has_carrier: flag,
  product: text,
  mtu: finite,
  ipv4_addresses: texts,
  biosdevname: text,
  client_id: text,
  mac_address: text,
  flags: texts,
  speed_mbps: finite,
  type: text,
});

const DRIVE_TYPES: Record<Schemas['drive_type'], true> = {
  Unknown: true,
  HDD: true,
  FDD: true,
  ODD: true,
  SSD: true,
  virtual: true,
  Multipath: true,
  iSCSI: true,
  FC: true,
  LVM: true,
  RAID: true,
  ECKD: true,
  'ECKD (ESE)': true,
  FBA: true,
};

const readDisk = shapeOf<InventoryDisk>({
  id: text,
  drive_type: oneOf(DRIVE_TYPES),
  has_uuid: flag,
  vendor: text,
  name: text,
  path: text,
  hctl: text,
  by_path: text,
  by_id: text,
  model: text,
  wwn: text,
  serial: text,
  size_bytes: finite,
  bootable: flag,
  removable: flag,
  partitionTypes: text,
  is_installation_media: flag,
  installation_eligibility: shapeOf<NonNullable<InventoryDisk['installation_eligibility']>>({ eligible: flag, not_eligible_reasons: texts }),
  smart: text,
  io_perf: shapeOf<Schemas['io_perf']>({ sync_duration: finite }),
  holders: text,
  iscsi: shapeOf<Schemas['iscsi']>({ host_ip_address: text }),
});

const readBoot = shapeOf<Schemas['boot']>({
  current_boot_mode: text,
  pxe_interface: text,
  command_line: text,
  secure_boot_state: oneOf<Schemas['secure-boot-state']>({ Unknown: true, NotSupported: true, Enabled: true, Disabled: true }),
  device_type: oneOf<NonNullable<Schemas['boot']['device_type']>>({ persistent: true, ephemeral: true }),
});

const readInventoryDocument = remembered(
  shapeOf<Inventory>({
    hostname: text,
    bmc_address: text,
    interfaces: listOf(readInterface),
    disks: listOf(readDisk),
    boot: readBoot,
    system_vendor: shapeOf<Schemas['system_vendor']>({ serial_number: text, product_name: text, manufacturer: text, virtual: flag }),
    bmc_v6address: text,
    memory: shapeOf<Schemas['memory']>({
      physical_bytes: finite,
      usable_bytes: finite,
      physical_bytes_method: oneOf<Schemas['memory_method']>({ dmidecode: true, ghw: true, meminfo: true }),
    }),
    cpu: shapeOf<Schemas['cpu']>({ count: finite, frequency: finite, flags: texts, model_name: text, architecture: text }),
    gpus: listOf(shapeOf<Schemas['gpu']>({ vendor: text, vendor_id: text, device_id: text, name: text, address: text })),
    routes: listOf(shapeOf<InventoryRoute>({ interface: text, gateway: text, destination: text, family: finite, metric: finite })),
    tpm_version: oneOf<NonNullable<Inventory['tpm_version']>>({ none: true, '1.2': true, '2.0': true }),
    truncation: shapeOf<NonNullable<Inventory['truncation']>>({ type: oneOf({ partial: true, full: true }), reasons: texts }, { type: true }),
  }),
);

const readRemoteHost = shapeOf<ConnectivityRemoteHost>({
  host_id: text,
  l2_connectivity: listOf(
    shapeOf<Schemas['l2-connectivity']>({ outgoing_nic: text, outgoing_ip_address: text, remote_ip_address: text, remote_mac: text, successful: flag }),
  ),
  l3_connectivity: listOf(
    shapeOf<Schemas['l3-connectivity']>({
      outgoing_nic: text,
      remote_ip_address: text,
      successful: flag,
      average_rtt_ms: finite,
      packet_loss_percentage: finite,
    }),
  ),
  mtu_report: listOf(shapeOf<Schemas['mtu-report']>({ outgoing_nic: text, remote_ip_address: text, mtu_successful: flag })),
});

const readImage = shapeOf<ContainerImageAvailability>({
  name: text,
  size_bytes: finite,
  time: finite,
  download_rate: finite,
  result: oneOf<Schemas['container_image_availability_result']>({ success: true, failure: true }),
});

/** The reader of each output the service reads (the others it stores as they came, or ignores). */
export const STEP_OUTPUT_READERS = {
  inventory: readInventoryDocument,
  'connectivity-check': shapeOf<ConnectivityReport>({ remote_hosts: listOf(readRemoteHost) }),
  'ntp-synchronizer': shapeOf<NtpSynchronizationResponse>({
    ntp_sources: listOf(
      shapeOf<Schemas['ntp_source']>({
        source_name: text,
        source_state: oneOf<Schemas['source_state']>({ synced: true, combined: true, not_combined: true, error: true, variable: true, unreachable: true }),
      }),
    ),
  }),
  'installation-disk-speed-check': shapeOf<DiskSpeedCheckResponse>({ io_sync_duration: finite, path: text }),
  'container-image-availability': shapeOf<ContainerImageAvailabilityResponse>({ images: listOf(readImage) }, { images: true }),
  'verify-vips': listOf(
    shapeOf<VerifiedVip>({
      vip: text,
      vip_type: oneOf<Schemas['vip_type']>({ api: true, ingress: true }),
      verification: oneOf<Schemas['vip_verification']>({ unverified: true, failed: true, succeeded: true }),
    }),
  ),
  'upgrade-agent': shapeOf<UpgradeAgentResponse>({ agent_image: text, result: oneOf<Schemas['upgrade_agent_result']>({ success: true, failure: true }) }),
} satisfies { readonly [T in OutputStepType]?: Reader<StepOutputs[T]> };

/** The inventory document (remembered per document object: every peer's validation reads it). */
export const readInventory: Reader<Inventory> = readInventoryDocument;
/** Image check results by image name, as the service stores them (images_status). */
export const readImageStatuses: Reader<Record<string, ContainerImageAvailability>> = recordOf(readImage);
/** A connectivity report, as the agent sends it and the service stores it. */
export const readConnectivityReport: Reader<ConnectivityReport> = STEP_OUTPUT_READERS['connectivity-check'];
