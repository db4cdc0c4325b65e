/** Steps that fetch over HTTP: tang-connectivity-check and api-vip-connectivity-check. */
import type { StepContext, StepRequest, StepResult } from '../contracts.js';
import { httpGet } from './http-get.js';
import { fail, guarded, stepRequest, succeed, StepArgumentError } from './support.js';
import { encodeStepOutput } from '../../../contracts/step-replies.js';

const TANG_TIMEOUT_MS = 10_000;
const IGNITION_TIMEOUT_MS = 60_000;

interface TangServerResponse {
  tang_url: string;
  payload: string;
  signatures: { protected: string; signature: string }[];
}

export async function tangConnectivityCheck(request: StepRequest, context: StepContext): Promise<StepResult> {
  return guarded(request, context, async () => {
    const { tang_servers: text } = stepRequest('tang-connectivity-check', request);
    let servers: unknown;
    try {
      servers = JSON.parse(text);
    } catch {
      throw new StepArgumentError('tang-connectivity-check "tang_servers" is not a JSON list');
    }
    if (!Array.isArray(servers)) throw new StepArgumentError('tang-connectivity-check "tang_servers" is not a JSON list');
    const responses: TangServerResponse[] = [];
    const errors: string[] = [];
    for (const [index, server] of servers.entries()) {
      const { url, thumbprint } = (server ?? {}) as { url?: unknown; thumbprint?: unknown };
      if (typeof url !== 'string' || typeof thumbprint !== 'string') {
        errors.push(`tang server ${index} needs "url" and "thumbprint"`);
        continue;
      }
      const advertisement = `${url.replace(/\/+$/, '')}/adv/${encodeURIComponent(thumbprint)}`;
      try {
        const response = await httpGet(advertisement, { timeoutMs: TANG_TIMEOUT_MS, signal: context.signal });
        if (response.status !== 200) {
          errors.push(`${advertisement} answered ${response.status}`);
          continue;
        }
        const jws = JSON.parse(response.body) as { payload?: unknown; signatures?: unknown };
        if (typeof jws.payload !== 'string' || !Array.isArray(jws.signatures)) {
          errors.push(`${advertisement} did not answer a tang advertisement`);
          continue;
        }
        responses.push({
          // The advertisement's own URL, as upstream's agent reports it.
          tang_url: advertisement,
          payload: jws.payload,
          signatures: jws.signatures.map((signature: { protected?: unknown; signature?: unknown }) => ({
            protected: typeof signature?.protected === 'string' ? signature.protected : '',
            signature: typeof signature?.signature === 'string' ? signature.signature : '',
          })),
        });
      } catch (error) {
        errors.push(`${advertisement}: ${(error as Error).message}`);
      }
    }
    if (errors.length > 0)
      return fail(
        `tang connectivity check failed: ${errors.join('; ')}`,
        -1,
        encodeStepOutput('tang-connectivity-check', { is_success: false, tang_server_response: responses }),
      );
    return succeed('tang-connectivity-check', { is_success: true, tang_server_response: responses });
  });
}

/** The ignition files a day-2 check keeps: what tells the service how the cluster's API is reached. */
const KEPT_FILES = new Set(['/etc/kubernetes/manifests/coredns.yaml', '/etc/kubernetes/manifests/keepalived.yaml', '/etc/kubernetes/kubeconfig']);

/** The fetched worker ignition cut down to its version, disk encryption and the files above. */
export function filterIgnition(ignition: Record<string, unknown>): Record<string, unknown> {
  const storage = (ignition.storage ?? {}) as { files?: { path?: unknown }[]; luks?: unknown };
  const files = (storage.files ?? []).filter((file) => typeof file?.path === 'string' && KEPT_FILES.has(file.path));
  return {
    ignition: ignition.ignition,
    storage: { ...(storage.luks !== undefined ? { luks: storage.luks } : {}), ...(files.length > 0 ? { files } : {}) },
  };
}

const IGNITION_ACCEPT = 'application/vnd.coreos.ignition+json; version=3.2.0';

export async function apiVipConnectivityCheck(request: StepRequest, context: StepContext): Promise<StepResult> {
  return guarded(request, context, async () => {
    const body = stepRequest('api-vip-connectivity-check', request) as ReturnType<typeof stepRequest<'api-vip-connectivity-check'>> & Record<string, unknown>;
    const url = body.url;
    const headers: Record<string, string> = { Accept: IGNITION_ACCEPT };
    if (typeof body.ignition_endpoint_token === 'string' && body.ignition_endpoint_token !== '')
      headers.Authorization = `Bearer ${body.ignition_endpoint_token}`;
    for (const header of Array.isArray(body.request_headers) ? body.request_headers : []) {
      const { key, value } = (header ?? {}) as { key?: unknown; value?: unknown };
      if (typeof key === 'string' && key !== '' && typeof value === 'string') headers[key] = value;
    }
    let ca: string | undefined;
    if (typeof body.ca_certificate === 'string' && body.ca_certificate !== '') {
      ca = Buffer.from(body.ca_certificate, 'base64').toString('utf8');
      if (!ca.includes('-----BEGIN CERTIFICATE-----'))
        throw new StepArgumentError('api-vip-connectivity-check "ca_certificate" is not a base64 PEM certificate');
    }
    // A failed download is the answer the service asks for, so it is a successful step with is_success false.
    const downloadFailed = (reason: string): StepResult => ({
      exit_code: 0,
      output: encodeStepOutput('api-vip-connectivity-check', { is_success: false, url, download_error: reason }),
      error: 'ignition download error',
    });
    let response: Awaited<ReturnType<typeof httpGet>>;
    try {
      response = await httpGet(url, { headers, ca, timeoutMs: IGNITION_TIMEOUT_MS, signal: context.signal });
    } catch (error) {
      return downloadFailed(`failed to download ignition from ${url}: ${(error as Error).message}`);
    }
    if (response.status !== 200) return downloadFailed(`ignition endpoint ${url} answered ${response.status}`);
    let ignition: Record<string, unknown>;
    try {
      ignition = JSON.parse(response.body) as Record<string, unknown>;
    } catch {
      return downloadFailed(`ignition from ${url} is not JSON`);
    }
    const version = (ignition?.ignition as { version?: unknown } | undefined)?.version;
    if (typeof version !== 'string' || !version.startsWith('3.')) return downloadFailed(`ignition from ${url} is not an ignition 3.x config`);
    return succeed('api-vip-connectivity-check', { is_success: true, url, ignition: JSON.stringify(filterIgnition(ignition)) });
  });
}
