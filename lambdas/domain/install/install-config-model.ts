/**
 * Upstream's typed install-config model and Go's encoding/json over it: the decoder the user's
 * install_config_overrides go through (unknown keys and wrong types refused, objects merged key
 * by key, lists replaced with elements merged by index, null clearing lists and optional objects,
 * keys matched case-insensitively) and the encoder that gives the document upstream's shape
 * (fields in declaration order, empty omitempty fields left out). Values are never shown in a
 * refusal: they may be secrets. Pure.
 */
import { isJsonObject, jsonKind } from '../../../contracts/json-shapes.js';
export interface StructType {
  kind: 'struct';
  fields: GoField[];
}
type GoType = { kind: 'string' | 'bool' } | { kind: 'int'; bits: 32 | 64 } | StructType | { kind: 'pointer'; to: GoType } | { kind: 'slice'; of: GoType };
interface GoField {
  name: string;
  type: GoType;
  omitEmpty: boolean;
}
export type GoValue = string | number | boolean | null | GoValue[] | GoObject;
export interface GoObject {
  [field: string]: GoValue;
}

export const isGoObject = (value: GoValue | undefined): value is GoObject => isJsonObject(value);

const str: GoType = { kind: 'string' };
const bool: GoType = { kind: 'bool' };
const int: GoType = { kind: 'int', bits: 64 };
const int32: GoType = { kind: 'int', bits: 32 };
const slice = (of: GoType): GoType => ({ kind: 'slice', of });
const pointer = (to: GoType): GoType => ({ kind: 'pointer', to });
/** Fields named like Go JSON tags: `name` is always written, `name,omitempty` only when not empty. */
const struct = (fields: [string, GoType][]): StructType => ({
  kind: 'struct',
  fields: fields.map(([tag, type]) => ({ name: tag.split(',')[0]!, type, omitEmpty: tag.endsWith(',omitempty') })),
});

const LOAD_BALANCER = pointer(struct([['type,omitempty', str]]));
const BAREMETAL = struct([
  ['provisioningNetwork', str],
  ['apiVIPs,omitempty', slice(str)],
  ['apiVIP,omitempty', str],
  ['ingressVIPs,omitempty', slice(str)],
  ['ingressVIP,omitempty', str],
  [
    'hosts',
    slice(
      struct([
        ['name', str],
        ['role', str],
        ['bootMACAddress', str],
        ['bootMode', str],
        [
          'bmc',
          struct([
            ['username', str],
            ['password', str],
            ['address', str],
            ['disableCertificateVerification', bool],
          ]),
        ],
        ['hardwareProfile', str],
      ]),
    ),
  ],
  ['clusterOSImage,omitempty', str],
  ['clusterProvisioningIP,omitempty', str],
  ['provisioningNetworkInterface,omitempty', str],
  ['provisioningNetworkCIDR,omitempty', pointer(str)],
  ['provisioningDHCPRange,omitempty', str],
  ['additionalNTPServers,omitempty', slice(str)],
  ['loadBalancer,omitempty', LOAD_BALANCER],
]);
const VSPHERE = struct([
  ['vCenter,omitempty', str],
  ['username,omitempty', str],
  ['password,omitempty', str],
  ['datacenter,omitempty', str],
  ['defaultDatastore,omitempty', str],
  ['folder,omitempty', str],
  ['network,omitempty', str],
  ['cluster,omitempty', str],
  ['apiVIP,omitempty', str],
  ['ingressVIP,omitempty', str],
  ['ingressVIPs,omitempty', slice(str)],
  ['apiVIPs,omitempty', slice(str)],
  [
    'failureDomains,omitempty',
    slice(
      struct([
        ['name', str],
        ['region', str],
        ['server', str],
        [
          'topology',
          struct([
            ['computeCluster', str],
            ['datacenter', str],
            ['datastore', str],
            ['folder,omitempty', str],
            ['networks,omitempty', slice(str)],
            ['resourcePool,omitempty', str],
          ]),
        ],
        ['zone', str],
      ]),
    ),
  ],
  [
    'vcenters,omitempty',
    slice(
      struct([
        ['datacenters', slice(str)],
        ['password', str],
        ['port,omitempty', int32],
        ['server', str],
        ['user', str],
      ]),
    ),
  ],
  ['loadBalancer,omitempty', LOAD_BALANCER],
]);
const NUTANIX_ENDPOINT = struct([
  ['address', str],
  ['port', int32],
]);
const NUTANIX = struct([
  ['apiVIPs,omitempty', slice(str)],
  ['apiVIP,omitempty', str],
  ['ingressVIPs,omitempty', slice(str)],
  ['ingressVIP,omitempty', str],
  [
    'prismCentral',
    struct([
      ['endpoint', NUTANIX_ENDPOINT],
      ['username', str],
      ['password', str],
    ]),
  ],
  [
    'prismElements',
    slice(
      struct([
        ['endpoint', NUTANIX_ENDPOINT],
        ['uuid', str],
        ['name', str],
      ]),
    ),
  ],
  ['subnetUUIDs', slice(str)],
]);
// Upstream tags this one for YAML only, so its JSON keys are the Go field names.
const EXTERNAL = struct([
  ['PlatformName', str],
  ['CloudControllerManager', str],
]);
const MACHINE_POOL = struct([
  ['hyperthreading,omitempty', str],
  ['name', str],
  ['replicas', int],
]);
const FENCING = struct([
  [
    'credentials,omitempty',
    slice(
      struct([
        ['hostname,omitempty', str],
        ['macAddress,omitempty', str],
        ['address', str],
        ['username', str],
        ['password', str],
        ['certificateVerification,omitempty', pointer(str)],
      ]),
    ),
  ],
]);
export const INSTALL_CONFIG = struct([
  ['apiVersion', str],
  ['baseDomain', str],
  [
    'proxy,omitempty',
    pointer(
      struct([
        ['httpProxy,omitempty', str],
        ['httpsProxy,omitempty', str],
        ['noProxy,omitempty', str],
      ]),
    ),
  ],
  [
    'networking',
    struct([
      ['networkType', str],
      [
        'clusterNetwork',
        slice(
          struct([
            ['cidr', str],
            ['hostPrefix', int],
          ]),
        ),
      ],
      ['machineNetwork,omitempty', slice(struct([['cidr', str]]))],
      ['serviceNetwork', slice(str)],
    ]),
  ],
  ['metadata', struct([['name', str]])],
  ['compute', slice(MACHINE_POOL)],
  [
    'controlPlane',
    struct([
      ['hyperthreading,omitempty', str],
      ['name', str],
      ['replicas', int],
      ['fencing,omitempty', pointer(FENCING)],
    ]),
  ],
  ['arbiter,omitempty', pointer(MACHINE_POOL)],
  [
    'platform',
    struct([
      ['baremetal,omitempty', pointer(BAREMETAL)],
      ['none,omitempty', pointer(struct([]))],
      ['vsphere,omitempty', pointer(VSPHERE)],
      ['nutanix,omitempty', pointer(NUTANIX)],
      ['external,omitempty', pointer(EXTERNAL)],
    ]),
  ],
  ['bootstrapInPlace,omitempty', pointer(struct([['installationDisk,omitempty', str]]))],
  ['fips', bool],
  ['cpuPartitioningMode,omitempty', str],
  ['pullSecret', str],
  ['sshKey', str],
  ['additionalTrustBundle,omitempty', str],
  ['additionalTrustBundlePolicy,omitempty', str],
  [
    'imageContentSources,omitempty',
    slice(
      struct([
        ['mirrors', slice(str)],
        ['source', str],
      ]),
    ),
  ],
  [
    'imageDigestSources,omitempty',
    slice(
      struct([
        ['source', str],
        ['mirrors,omitempty', slice(str)],
      ]),
    ),
  ],
  [
    'capabilities,omitempty',
    pointer(
      struct([
        ['baselineCapabilitySet,omitempty', str],
        ['additionalEnabledCapabilities,omitempty', slice(str)],
      ]),
    ),
  ],
  ['featureSet,omitempty', str],
  ['featureGates,omitempty', slice(str)],
  ['osImageStream,omitempty', str],
]);

function zero(type: GoType): GoValue {
  if (type.kind === 'string') return '';
  if (type.kind === 'bool') return false;
  if (type.kind === 'int') return 0;
  if (type.kind === 'struct') return zeroStruct(type);
  return null;
}

export const zeroStruct = (type: StructType): GoObject => Object.fromEntries(type.fields.map((f) => [f.name, zero(f.type)]));

/** A refusal of the overrides, in words the caller can act on. */
export class OverrideError extends Error {}

const MAX_KEY_SHOWN = 60;
const KIND_IN_WORDS: Readonly<Record<string, string>> = { null: 'null', array: 'a list', object: 'an object' };
/** The JSON kind of a value as a refusal names it: "a list", "an object", "a string". */
const kindInWords = (value: unknown) => KIND_IN_WORDS[jsonKind(value)] ?? `a ${jsonKind(value)}`;
/** Where in the document; keys are the caller's own text, values are never shown (they may be secrets). */
const at = (path: string) => (path === '' ? 'the overrides' : `"${path.length > MAX_KEY_SHOWN ? `${path.slice(0, MAX_KEY_SHOWN)}…` : path}"`);

/** Go's encoding/json decoding `input` into `current` of `type`, with unknown fields disallowed. */
function decode(type: GoType, current: GoValue, input: unknown, path: string): GoValue {
  if (input === null) return type.kind === 'pointer' || type.kind === 'slice' ? null : current;
  const refuse = (expected: string) => new OverrideError(`${at(path)} must be ${expected}, not ${kindInWords(input)}`);
  switch (type.kind) {
    case 'string':
      if (typeof input !== 'string') throw refuse('a string');
      return input;
    case 'bool':
      if (typeof input !== 'boolean') throw refuse('a boolean');
      return input;
    case 'int': {
      const limit = type.bits === 32 ? 2 ** 31 : Number.MAX_SAFE_INTEGER;
      if (typeof input !== 'number' || !Number.isInteger(input)) throw refuse('an integer');
      if (input >= limit || input < -limit) throw new OverrideError(`${at(path)} is out of range`);
      return input;
    }
    case 'pointer':
      return decode(type.to, current ?? zero(type.to), input, path);
    case 'slice': {
      if (!Array.isArray(input)) throw refuse('a list');
      // Go decodes each element into the element already at that index, so objects merge by index.
      const existing = Array.isArray(current) ? current : [];
      return input.map((item, i) => decode(type.of, i < existing.length ? existing[i]! : zero(type.of), item, `${path}[${i}]`));
    }
    case 'struct':
      return decodeStruct(type, isGoObject(current) ? current : {}, input, path);
  }
}

/** `decode` of a struct: a null input leaves it as it is. */
export function decodeStruct(type: StructType, current: GoObject, input: unknown, path: string): GoObject {
  if (input === null) return current;
  if (typeof input !== 'object' || Array.isArray(input)) throw new OverrideError(`${at(path)} must be an object, not ${kindInWords(input)}`);
  const out = { ...current };
  for (const [key, value] of Object.entries(input)) {
    const field = type.fields.find((f) => f.name === key) ?? type.fields.find((f) => f.name.toLowerCase() === key.toLowerCase());
    const where = path === '' ? key : `${path}.${key}`;
    if (!field) throw new OverrideError(`${at(where)} is not an install-config field assisted installation supports`);
    if (value !== undefined) out[field.name] = decode(field.type, out[field.name] ?? zero(field.type), value, where);
  }
  return out;
}

const isEmpty = (type: GoType, value: GoValue) =>
  type.kind !== 'struct' && (value === '' || value === 0 || value === false || value === null || (Array.isArray(value) && value.length === 0));

/** Go's encoding/json output shape: fields in declaration order, empty `omitempty` fields left out. */
function encode(type: GoType, value: GoValue): unknown {
  if (value === null) return null;
  if (type.kind === 'pointer') return encode(type.to, value);
  if (type.kind === 'slice' && Array.isArray(value)) return value.map((item) => encode(type.of, item));
  if (type.kind !== 'struct' || !isGoObject(value)) return value;
  return encodeStruct(type, value);
}

export function encodeStruct(type: StructType, value: GoObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fields) {
    const fieldValue = value[field.name] ?? zero(field.type);
    if (!(field.omitEmpty && isEmpty(field.type, fieldValue))) out[field.name] = encode(field.type, fieldValue);
  }
  return out;
}
