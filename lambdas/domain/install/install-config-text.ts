/**
 * The install-config as text: the API's JSON, the installer's YAML, and the copies shown to callers
 * who may not see its pull secret or its proxies' credentials. The document carries the pull
 * secret: never log it. Pure.
 */
import YAML from 'yaml';
import { proxyUrlWithoutCredentials } from '../../../contracts/input-checks.js';
import type { InstallConfig } from './install-config.js';
/** What stands for the pull secret in an install config shown to a caller who has no need of it. */
export const REDACTED_PULL_SECRET = '<redacted: only the cluster owner may read the pull secret>';

/** The install config without its pull secret. */
export const withoutPullSecret = (config: InstallConfig): InstallConfig => ({ ...config, pullSecret: REDACTED_PULL_SECRET });

/**
 * install-config.yaml as stored, with its pull secret replaced (the rest as written), and, for a
 * caller who may not see credentials, its proxies' user and password too.
 */
export function installConfigYamlWithoutPullSecret(text: string, options: { proxyCredentials: boolean } = { proxyCredentials: true }): string {
  const document = YAML.parseDocument(text);
  if (document.has('pullSecret')) document.set('pullSecret', REDACTED_PULL_SECRET);
  if (!options.proxyCredentials) {
    for (const field of ['httpProxy', 'httpsProxy']) {
      const value: unknown = document.getIn(['proxy', field]);
      if (typeof value === 'string') document.setIn(['proxy', field], proxyUrlWithoutCredentials(value));
    }
  }
  return document.toString({ lineWidth: 0 });
}

/** The document as upstream serialises it (Go's encoding/json, HTML-safe escapes): the GET body. */
export function installConfigJson(config: InstallConfig): string {
  return JSON.stringify(config).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The document as install-config.yaml, for the installer; long lines (keys, secrets) stay unfolded. */
export function installConfigYaml(config: InstallConfig): string {
  return YAML.stringify(config, { lineWidth: 0 });
}
