/**
 * Reading ZTP manifest fields with their checks: every problem becomes a ManifestError that names
 * file, document and field, and the reader goes on so that one run reports them all. The pieces
 * several manifests share (pull secret references, proxies, CIDR and VIP lists, NMStateConfigs) are
 * checked here; cli/ztp/translate.ts maps what passes to the REST API's parameters. Pure: no I/O.
 */
import YAML from 'yaml';
import { staticNetworkConfigProblem, type StaticNetworkEntry } from '../../contracts/static-network-config.js';
import { cidrProblem, isIp, noProxyProblem, proxyUrlProblem, pullSecretProblem } from '../../contracts/input-checks.js';
import type { ManifestDocument, ManifestError } from './manifests.js';
import { isJsonObject } from '../../contracts/json-shapes.js';

/** Reads fields of one document, recording a ManifestError per problem. */
export class FieldReader {
  constructor(
    readonly document: ManifestDocument,
    private readonly errors: ManifestError[],
  ) {}

  problem(field: string, message: string): void {
    const { file, index, kind, name } = this.document;
    this.errors.push({ file, document: index, kind, name, field, message });
  }

  get(field: string): unknown {
    let value: unknown = this.document.body;
    for (const part of field.split('.')) value = isJsonObject(value) ? value[part] : undefined;
    return value;
  }

  string(field: string, options: { required?: boolean } = {}): string | undefined {
    const value = this.get(field);
    if (value === undefined || value === null || value === '') {
      if (options.required) this.problem(field, 'is required');
      return undefined;
    }
    if (typeof value !== 'string') {
      this.problem(field, `must be a string, not ${JSON.stringify(value)}`);
      return undefined;
    }
    return value;
  }

  boolean(field: string): boolean | undefined {
    const value = this.get(field);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') {
      this.problem(field, `must be true or false, not ${JSON.stringify(value)}`);
      return undefined;
    }
    return value;
  }

  integer(field: string, options: { required?: boolean; min?: number; max?: number } = {}): number | undefined {
    const value = this.get(field);
    if (value === undefined || value === null) {
      if (options.required) this.problem(field, 'is required');
      return undefined;
    }
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      this.problem(field, `must be an integer, not ${JSON.stringify(value)}`);
      return undefined;
    }
    if ((options.min !== undefined && value < options.min) || (options.max !== undefined && value > options.max)) {
      this.problem(field, `must be between ${options.min ?? '-∞'} and ${options.max ?? '∞'}, not ${value}`);
      return undefined;
    }
    return value;
  }

  list(field: string): unknown[] {
    const value = this.get(field);
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.problem(field, 'must be a list');
      return [];
    }
    return value;
  }

  stringList(field: string): string[] {
    return this.list(field).flatMap((item, index) => {
      if (typeof item === 'string' && item !== '') return [item];
      this.problem(`${field}[${index}]`, `must be a non-empty string, not ${JSON.stringify(item)}`);
      return [];
    });
  }

  check(field: string, reason: string | undefined): void {
    if (reason) this.problem(field, reason);
  }
}

export const key = (namespace: string, name: string) => `${namespace}/${name}`;

export function pullSecretOf(reader: FieldReader, secrets: Map<string, ManifestDocument>, errors: ManifestError[], field: string): string | undefined {
  const name = reader.string(`${field}.name`, { required: true });
  if (!name) return undefined;
  const secret = secrets.get(key(reader.document.namespace, name));
  if (!secret) {
    reader.problem(
      `${field}.name`,
      `Secret "${name}" is not among the manifests${reader.document.namespace ? ` in namespace "${reader.document.namespace}"` : ''}`,
    );
    return undefined;
  }
  const secretReader = new FieldReader(secret, errors);
  const type = secretReader.string('type');
  if (type !== undefined && type !== 'kubernetes.io/dockerconfigjson') {
    secretReader.problem('type', `must be kubernetes.io/dockerconfigjson for a pull secret, not "${type}"`);
    return undefined;
  }
  // `.dockerconfigjson` starts with a dot, which a dotted field path cannot express: read the maps directly.
  let value: string;
  const stringData = secretReader.get('stringData');
  const data = secretReader.get('data');
  if (isJsonObject(stringData) && typeof stringData['.dockerconfigjson'] === 'string') {
    value = stringData['.dockerconfigjson'];
  } else if (isJsonObject(data) && typeof data['.dockerconfigjson'] === 'string') {
    const encoded = data['.dockerconfigjson'].replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) {
      secretReader.problem('data[.dockerconfigjson]', 'is not base64 (use stringData for plain text)');
      return undefined;
    }
    value = Buffer.from(encoded, 'base64').toString('utf8');
  } else {
    secretReader.problem('stringData[.dockerconfigjson]', 'is required (or data[.dockerconfigjson], base64): the pull secret JSON');
    return undefined;
  }
  const problem = pullSecretProblem(value);
  if (problem) {
    secretReader.problem(isJsonObject(stringData) && '.dockerconfigjson' in stringData ? 'stringData[.dockerconfigjson]' : 'data[.dockerconfigjson]', problem);
    return undefined;
  }
  return value;
}

export function proxyOf(reader: FieldReader): { http_proxy?: string; https_proxy?: string; no_proxy?: string } | undefined {
  if (reader.get('spec.proxy') === undefined) return undefined;
  const http = reader.string('spec.proxy.httpProxy');
  const https = reader.string('spec.proxy.httpsProxy');
  const no = reader.string('spec.proxy.noProxy');
  if (http) reader.check('spec.proxy.httpProxy', proxyUrlProblem('http_proxy', http));
  if (https) reader.check('spec.proxy.httpsProxy', proxyUrlProblem('https_proxy', https));
  if (no) reader.check('spec.proxy.noProxy', noProxyProblem(no));
  return { ...(http ? { http_proxy: http } : {}), ...(https ? { https_proxy: https } : {}), ...(no ? { no_proxy: no } : {}) };
}

export function cidrList(reader: FieldReader, field: string, itemField?: string): string[] {
  return reader.list(field).flatMap((item, index) => {
    const where = itemField ? `${field}[${index}].${itemField}` : `${field}[${index}]`;
    const cidr = itemField ? (isJsonObject(item) ? item[itemField] : undefined) : item;
    if (typeof cidr !== 'string' || cidr === '') {
      reader.problem(where, 'is required (a CIDR such as 192.168.111.0/24)');
      return [];
    }
    const problem = cidrProblem(where, cidr);
    if (problem) {
      reader.problem(where, problem.replace(`${where} `, ''));
      return [];
    }
    return [cidr];
  });
}

export function vips(reader: FieldReader, plural: string, singular: string): { ip: string }[] | undefined {
  const many = reader.stringList(`spec.${plural}`);
  const one = reader.string(`spec.${singular}`);
  if (one && many.length > 0 && !many.includes(one)) reader.problem(`spec.${singular}`, `${one} is not among spec.${plural}; give one or the other`);
  const all = many.length > 0 ? many : one ? [one] : [];
  all.forEach((ip, index) => {
    if (!isIp(ip)) reader.problem(many.length > 0 ? `spec.${plural}[${index}]` : `spec.${singular}`, `"${ip}" is not an IP address`);
  });
  return all.length > 0 ? all.map((ip) => ({ ip })) : undefined;
}

/** nmstate config + interface list of one NMStateConfig as a static_network_config entry. */
export function staticNetworkEntry(reader: FieldReader): StaticNetworkEntry | undefined {
  const config = reader.get('spec.config');
  if (!isJsonObject(config)) {
    reader.problem('spec.config', 'is required: the host network in nmstate format');
    return undefined;
  }
  const interfaces = reader.list('spec.interfaces');
  if (interfaces.length === 0) {
    reader.problem('spec.interfaces', 'must list at least one {name, macAddress}: without a MAC the host this config is for cannot be recognised');
    return undefined;
  }
  const map = interfaces.flatMap((item, index) => {
    if (!isJsonObject(item) || typeof item.name !== 'string' || typeof item.macAddress !== 'string') {
      reader.problem(`spec.interfaces[${index}]`, 'must be {name, macAddress} strings');
      return [];
    }
    return [{ mac_address: item.macAddress, logical_nic_name: item.name }];
  });
  if (map.length !== interfaces.length) return undefined;
  const entry: StaticNetworkEntry = { network_yaml: YAML.stringify(config), mac_interface_map: map };
  const problem = staticNetworkConfigProblem([entry]);
  if (problem) {
    reader.problem(
      problem.startsWith('static_network_config[0].network_yaml')
        ? 'spec.config'
        : problem.startsWith('static_network_config[0].mac_interface_map')
          ? 'spec.interfaces'
          : 'spec',
      problem
        .replace(/^static_network_config\[0\]\.network_yaml: /, '')
        .replace(/static_network_config\[0\]\.mac_interface_map\[(\d+)\]\.mac_address/g, 'spec.interfaces[$1].macAddress')
        .replace(/static_network_config\[0\]\.mac_interface_map\[(\d+)\]\.logical_nic_name/g, 'spec.interfaces[$1].name')
        .replace(/static_network_config\[0\]\.mac_interface_map/g, 'spec.interfaces')
        .replace(/network_yaml/g, 'spec.config'),
    );
    return undefined;
  }
  return entry;
}
