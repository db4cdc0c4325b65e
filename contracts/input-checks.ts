/**
 * Checks of user input that JSON Schema cannot express. Each returns `undefined` when the value is
 * acceptable, otherwise a reason a person can act on. No reason ever quotes a secret.
 */
import { Address4, Address6 } from 'ip-address';
import { isJsonObject } from './json-shapes.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its usual text form, either case, as upstream's strfmt.UUID accepts it. */
export const isUuid = (value: string): boolean => UUID.test(value);

/** A request's user input as it arrived (after schema validation), by field name. */
export type Params = Record<string, unknown>;

type Reason = string | undefined;

/**
 * A create or update request's parameters without the fields it sent as null. upstream's Go
 * decodes a null into a nil pointer, which its create and update handlers read as "not given";
 * openapi.yaml lets a nullable field be null, and no field here gives a null another meaning.
 * Only the top level: a null inside a value is that value's own (and its schema's) business.
 */
export function withoutNullFields<T extends object>(params: T): T {
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== null)) as T;
}

// ---- pull secret ------------------------------------------------------------------------------

export function pullSecretProblem(pullSecret: string): Reason {
  let parsed: unknown;
  try {
    parsed = JSON.parse(pullSecret);
  } catch {
    return 'pull_secret is not valid JSON: paste the whole pull secret from console.redhat.com/openshift/install/pull-secret';
  }
  const auths = isJsonObject(parsed) ? parsed.auths : undefined;
  if (!isJsonObject(auths) || Object.keys(auths).length === 0) {
    return 'pull_secret must be an object with a non-empty "auths" map of registries';
  }
  for (const [registry, entry] of Object.entries(auths)) {
    const auth = isJsonObject(entry) ? entry.auth : undefined;
    if (typeof auth !== 'string' || auth.length === 0) return `pull_secret: the entry for registry "${registry}" has no "auth" field`;
    const decoded = Buffer.from(auth, 'base64').toString('utf8');
    if (!/^[A-Za-z0-9+/=\s]+$/.test(auth) || !decoded.includes(':')) {
      return `pull_secret: the "auth" of registry "${registry}" must be base64 of "user:password"`;
    }
  }
  return undefined;
}

// ---- SSH keys ---------------------------------------------------------------------------------

const SSH_KEY_TYPES = new Set([
  'ssh-rsa',
  'ssh-dss',
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
]);

/** One or more public keys in authorized_keys format; each key's blob must name its own type. */
export function sshPublicKeyProblem(keys: string): Reason {
  const lines = keys
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  if (lines.length === 0) return 'ssh_public_key is empty';
  for (const [index, line] of lines.entries()) {
    const [type, data] = line.split(/\s+/);
    const where = lines.length > 1 ? ` (key ${index + 1})` : '';
    if (!type || !SSH_KEY_TYPES.has(type) || !data) {
      return `ssh_public_key${where} must be an OpenSSH public key such as "ssh-ed25519 AAAA… comment"`;
    }
    const blob = Buffer.from(data, 'base64');
    const declared = blob.length >= 4 ? blob.subarray(4, 4 + blob.readUInt32BE(0)).toString('latin1') : '';
    if (declared !== type) return `ssh_public_key${where} is malformed: its key data is not a ${type} key`;
  }
  return undefined;
}

// ---- names ------------------------------------------------------------------------------------

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export function clusterNameProblem(name: string): Reason {
  // Upstream's rule for a cluster's name: a DNS label, so a leading digit is fine ("1abc").
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > 54) {
    return `cluster name "${name}" must be 1–54 lowercase letters, digits or '-', and start and end with a letter or digit`;
  }
  return undefined;
}

/**
 * A base domain as upstream's ValidateDomainNameFormat takes it: one label of 2 to 62 characters
 * ("local"), or labels whose last (the top-level one) has at least two characters ("a.b" is refused),
 * never four dotted numbers; lowercase letters, digits and inner hyphens throughout.
 */
export function baseDomainProblem(domain: string): Reason {
  const labels = domain.split('.');
  const topLevel = labels.at(-1)!;
  const singleLabel = labels.length === 1 && domain.length > 1 && domain.length < 63;
  const dotted = labels.length > 1 && topLevel.length >= 2 && !/(\d+\.){3}\d+/.test(domain);
  if (domain.length > 181 || !(singleLabel || dotted) || !labels.every((label) => DNS_LABEL.test(label))) {
    return `base_dns_domain "${domain}" must be a DNS domain of lowercase labels, such as example.com, with a top-level label of two characters or more`;
  }
  return undefined;
}

export function hostnameProblem(hostname: string): Reason {
  const labels = hostname.split('.');
  if (hostname.length > 253 || !labels.every((label) => DNS_LABEL.test(label))) {
    return `hostname "${hostname}" must be lowercase letters, digits, '-' and '.', each label 1–63 characters`;
  }
  if (hostname === 'localhost' || hostname.startsWith('localhost.')) return `hostname "${hostname}" is not allowed`;
  return undefined;
}

// ---- names people read --------------------------------------------------------------------------

/**
 * Characters a name shown in lists and events may not hold: control characters, and the bidi
 * controls that make a name read otherwise than it is stored (U+061C, U+200E/F, U+202A–U+202E,
 * U+2066–U+2069).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/**
 * A name people read (an infra-env's, an API token's, an organisation's, an event's): no lone
 * surrogate (it has no UTF-8 form, and strict JSON parsers refuse the lists that carry it), no
 * control or bidi control character.
 */
export function displayTextProblem(field: string, text: string): Reason {
  if (!text.isWellFormed()) return `${field} holds a lone UTF-16 surrogate, which is no character: send the text as UTF-8`;
  const found = UNSHOWABLE.exec(text)?.[0];
  if (found !== undefined)
    return `${field} may not hold control or bidirectional-control characters (it holds U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`;
  return undefined;
}

// ---- NTP sources ------------------------------------------------------------------------------

/** What upstream takes for a source that is not an IP address: 2–63 lowercase letters, digits, '-' and '.', alphanumeric at both ends. */
const NTP_SOURCE_NAME = /^[a-z0-9][a-z0-9.-]{0,61}[a-z0-9]$/;

function ntpSourceValid(source: string): boolean {
  if (NTP_SOURCE_NAME.test(source)) return true;
  // An address alone: no prefix length, no zone.
  return !/[/%]/.test(source) && isIp(source);
}

/** A comma-separated list of NTP sources (empty clears it), each an IP address or a host name. */
export function ntpSourcesProblem(field: 'additional_ntp_source' | 'additional_ntp_sources' | 'ntp_sources', sources: string): Reason {
  if (sources === '') return undefined;
  const invalid = sources.split(',').find((source) => !ntpSourceValid(source));
  if (invalid === undefined) return undefined;
  const shown = invalid.length > 80 ? `${invalid.slice(0, 80)}…` : invalid;
  return `Invalid NTP source in ${field}: "${shown}" is neither an IP address nor a host name (2–63 lowercase letters, digits, '-' and '.'); separate sources with commas and no spaces`;
}

// ---- proxy ------------------------------------------------------------------------------------

/** A proxy URL with its user and password (if any) replaced by `<redacted>`, for callers who may not see credentials. */
export function proxyUrlWithoutCredentials(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1<redacted>@');
}

export function proxyUrlProblem(field: 'http_proxy' | 'https_proxy', value: string): Reason {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${field} must be a URL such as http://proxy.example.com:3128`;
  }
  const allowed = field === 'http_proxy' ? ['http:'] : ['http:', 'https:'];
  if (!allowed.includes(url.protocol)) return `${field} must use ${allowed.map((p) => p.slice(0, -1)).join(' or ')}`;
  if (!url.hostname) return `${field} must name a proxy host`;
  return undefined;
}

export function noProxyProblem(value: string): Reason {
  // Upstream checks nothing more of a value holding the wildcard (supported since OpenShift 4.8,
  // older than any release offered): "*,example.com" is accepted as it is.
  if (value.includes('*')) return undefined;
  for (const entry of value.split(',').map((e) => e.trim())) {
    if (!entry) return 'no_proxy has an empty entry: separate domains, IPs and CIDRs with single commas';
    const domain = entry.replace(/^\./, '');
    if (parseCidr(entry) || isIp(entry) || domain.split('.').every((label) => DNS_LABEL.test(label.toLowerCase()))) continue;
    return `no_proxy entry "${entry}" is not a domain, an IP address or a CIDR`;
  }
  return undefined;
}

// ---- addresses and networks -------------------------------------------------------------------

export interface Cidr {
  text: string;
  family: 4 | 6;
  prefix: number;
  /** First and last address as big integers, for containment and overlap tests. */
  start: bigint;
  end: bigint;
}

export function isIp(value: string): boolean {
  return Address4.isValid(value) || Address6.isValid(value);
}

function ipValue(value: string): { family: 4 | 6; value: bigint } | undefined {
  if (Address4.isValid(value) && !value.includes('/')) return { family: 4, value: new Address4(value).bigInt() };
  if (Address6.isValid(value) && !value.includes('/')) return { family: 6, value: new Address6(value).bigInt() };
  return undefined;
}

export function parseCidr(text: string): Cidr | undefined {
  if (!text.includes('/')) return undefined;
  const [address = '', prefixText = ''] = text.split('/');
  const prefix = Number(prefixText);
  const ip = ipValue(address);
  if (!ip || !/^\d{1,3}$/.test(prefixText) || prefix > (ip.family === 4 ? 32 : 128)) return undefined;
  const bits = BigInt(ip.family === 4 ? 32 : 128);
  const size = 1n << (bits - BigInt(prefix));
  const start = (ip.value / size) * size;
  return { text, family: ip.family, prefix, start, end: start + size - 1n };
}

export function cidrProblem(field: string, text: string): Reason {
  const cidr = parseCidr(text);
  if (!cidr) return `${field} "${text}" is not a CIDR such as 10.128.0.0/14 or fd01::/48`;
  const ip = ipValue(text.split('/')[0]!)!;
  if (ip.value !== cidr.start) return `${field} "${text}" has host bits set: did you mean the network address of that block?`;
  return undefined;
}

export function overlaps(a: Cidr, b: Cidr): boolean {
  return a.family === b.family && a.start <= b.end && b.start <= a.end;
}

export function contains(cidr: Cidr, address: string): boolean {
  const ip = ipValue(address);
  return !!ip && ip.family === cidr.family && ip.value >= cidr.start && ip.value <= cidr.end;
}

export function ipFamily(address: string): 4 | 6 | undefined {
  return ipValue(address)?.family;
}

/** Upstream's rule: each node gets a /hostPrefix out of the cluster network. */
export function hostPrefixProblem(clusterNetwork: string, hostPrefix: number): Reason {
  const cidr = parseCidr(clusterNetwork);
  if (!cidr) return undefined;
  if (cidr.family === 6) {
    return hostPrefix === 64 ? undefined : `host_prefix for the IPv6 cluster network ${clusterNetwork} must be 64`;
  }
  if (hostPrefix <= cidr.prefix || hostPrefix > 25) {
    return `host_prefix ${hostPrefix} must be larger than the cluster network prefix (/${cidr.prefix}) and at most 25, so that every node gets at least 128 pod addresses`;
  }
  return undefined;
}
