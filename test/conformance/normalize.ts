/**
 * Makes one side's answer comparable with the other's: what differs between two correct services by
 * construction (ids each side chose, clocks, the services' own URLs, tokens) becomes a placeholder, and
 * what the wire carries as text but means as structure (JSON inside strings, install-config YAML)
 * becomes structure. Nothing else is touched: every other value is compared as sent.
 */
import { parse as parseYaml } from 'yaml';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const UUID_ONLY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})$/;
/** Go's zero time: upstream's "never", kept apart from a real time because a client may test for it. */
const ZERO_TIME = /^0001-01-01T/;
const JWT = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
/** Our API tokens (ac1.<org>.<id>.<secret>). */
const API_TOKEN = /\bac1\.[A-Za-z0-9-]+\.[0-9a-f]{32}\.[A-Za-z0-9_-]+/g;
/** A loopback service address: either side's API, upstream's image service, our S3 stand-in. */
const LOOPBACK_ORIGIN = /https?:\/\/(?:127\.0\.0\.1|localhost):\d+/g;
/** Query parameters that carry a credential or a signature. */
const SECRET_QUERY = /([?&](?:image_token|api_key|token|X-Amz-[A-Za-z-]+)=)[^&#\s"]+/g;
/**
 * A discovery image's URL, on either side: upstream's image service names the image in its path
 * (`/byid/<id>/<version>/<arch>/<type>.iso`; `bytoken`/`byapikey` carry a token where the id is),
 * ours in its query (`/api/assisted-images/images/<id>?arch=…&image_token=…&type=…&version=…`).
 * Both become the image they name, so what is compared is the shape: which infra-env, version,
 * architecture and type. The service that serves it and how its credential is carried are each
 * side's own (docs/compatibility.md, discovery-image-url).
 */
const UPSTREAM_IMAGE_URL = /^<service>\/(?:byid|bytoken|byapikey)\/([^/]+)\/([^/]+)\/([^/]+)\/(full|minimal|disconnected)\.iso$/;
const OUR_IMAGE_URL = /^<service>\/api\/assisted-images\/images\/([^/?]+)\?(.*)$/;

function discoveryImageUrl(url: string, ids: Placeholders): string | undefined {
  const image = (id: string, version: string | null, arch: string | null, type: string | null) =>
    `<discovery image ${/^[0-9a-f-]{36}$/i.test(id) ? ids.of(id) : '<token>'} version=${version} arch=${arch} type=${type}>`;
  const upstream = UPSTREAM_IMAGE_URL.exec(url);
  if (upstream) return image(upstream[1]!, upstream[2]!, upstream[3]!, `${upstream[4]}-iso`);
  const ours = OUR_IMAGE_URL.exec(url);
  if (ours) {
    const query = new URLSearchParams(ours[2]);
    return image(ours[1]!, query.get('version'), query.get('arch'), query.get('type'));
  }
  return undefined;
}

/** Step ids: the step type and a random suffix (upstream's 8 hex digits; ours may differ). */
const STEP_ID = /^([a-z][a-z-]*[a-z])-[0-9a-zA-Z]{6,}$/;

/** Fields whose string value is a JSON document on the wire (upstream's models keep them as text); any other string holding a JSON object or array is parsed too. */
export const JSON_STRING_FIELDS = new Set([
  'validations_info',
  'feature_usage',
  'connectivity',
  'inventory',
  'ntp_sources',
  'free_addresses',
  'domain_resolutions',
  'images_status',
  'disks_info',
  'tang_connectivity',
  'install_config_overrides',
  'ignition_config_overrides',
  'ignition_config_override',
  'installer_args',
  'host_networks_json',
  'controller_logs_collected_at_json',
  'ui_settings',
  'tang_servers',
  'additional_trust_bundle_json',
  'node_labels_json',
  'api_vip_connectivity',
  'next_step_runner_command_json',
]);

/**
 * The placeholders of one scenario on one side. Ids the scenario named (a cluster it created, its
 * hosts' chosen ids) are seeded with the name the scenario gave them, so both sides agree whatever
 * order they appear in; any other id gets `<id#N>` by first appearance.
 */
export class Placeholders {
  private readonly names = new Map<string, string>();
  private next = 1;

  name(id: string, placeholder: string): void {
    this.names.set(id.toLowerCase(), `<${placeholder}>`);
  }

  of(id: string): string {
    const key = id.toLowerCase();
    let placeholder = this.names.get(key);
    if (!placeholder) {
      placeholder = `<id#${this.next++}>`;
      this.names.set(key, placeholder);
    }
    return placeholder;
  }
}

/** A host's status_info listing only checks still waiting for a result (ours; upstream lists nothing there). */
const WAITING_ITEM = String.raw`(?:(?! ; ).)+? \(waiting for a result\)`;
const WAITING_CHECKS_ONLY = new RegExp(String.raw`^(.*?failing validation\(s\): )${WAITING_ITEM}(?: ; ${WAITING_ITEM})*$`, 's');

function normalizeString(text: string, ids: Placeholders, key?: string): string {
  if (key === 'status_info') {
    // docs/compatibility.md (Normalization): where upstream names no validation, we name the waiting ones.
    const waiting = WAITING_CHECKS_ONLY.exec(text);
    if (waiting) return waiting[1]!;
  }
  if (key === 'step_id') {
    const step = STEP_ID.exec(text);
    if (step) return `${step[1]}-<random>`;
  }
  if (UUID_ONLY.test(text)) return ids.of(text);
  if (TIMESTAMP.test(text)) return ZERO_TIME.test(text) ? '<zero-time>' : '<time>';
  const image = discoveryImageUrl(text.replace(LOOPBACK_ORIGIN, '<service>'), ids);
  if (image) return image;
  return text
    .replace(LOOPBACK_ORIGIN, '<service>')
    .replace(SECRET_QUERY, '$1<secret>')
    .replace(JWT, '<jwt>')
    .replace(API_TOKEN, '<api-token>')
    .replace(UUID, (id) => ids.of(id));
}

function parseJsonText(text: string): unknown {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

/**
 * The comparable form of `value`. Object keys are visited in sorted order, so `<id#N>` numbering
 * depends on the structure only, never on the order a service wrote its fields in.
 */
export function normalize(value: unknown, ids: Placeholders, key?: string): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === 'string') {
    // Named JSON fields, and any other string that holds a JSON object or array (upstream keeps
    // several as text: connectivity groups, IP collisions, DNS resolutions, the runner's arguments).
    const parsed = parseJsonText(value);
    if (parsed !== undefined && (typeof parsed === 'object' || (key && JSON_STRING_FIELDS.has(key)))) return normalize(parsed, ids);
    return normalizeString(value, ids, key);
  }
  if (Array.isArray(value)) return value.map((item) => normalize(item, ids, key));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(value as object).sort()) out[name] = normalize((value as Record<string, unknown>)[name], ids, name);
    return out;
  }
  return value;
}

/** install-config as upstream and we serve it: a JSON string holding YAML. Parsed, then normalized. */
export function normalizeInstallConfig(body: unknown, ids: Placeholders): unknown {
  if (typeof body !== 'string') return normalize(body, ids);
  try {
    return normalize(parseYaml(body), ids);
  } catch (error) {
    return { '(unparsable YAML)': String(error).slice(0, 200) };
  }
}
