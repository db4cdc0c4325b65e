/**
 * Reading ZTP manifests: multi-document Kubernetes-style YAML files into typed documents, with
 * every problem reported as file, document and field. Pure apart from `readManifestDir`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isJsonObject } from '../../contracts/json-shapes.js';

/** The kinds `ztp apply` understands, with the apiVersion each must carry. */
export const MANIFEST_KINDS = {
  ClusterDeployment: 'hive.openshift.io/v1',
  AgentClusterInstall: 'extensions.hive.openshift.io/v1beta1',
  ClusterImageSet: 'hive.openshift.io/v1',
  InfraEnv: 'agent-install.openshift.io/v1beta1',
  NMStateConfig: 'agent-install.openshift.io/v1beta1',
  Secret: 'v1',
} as const;

export type ManifestKind = keyof typeof MANIFEST_KINDS;

export interface ManifestDocument {
  file: string;
  /** 1-based position of the document in its file. */
  index: number;
  kind: ManifestKind;
  name: string;
  /** Empty when the manifest gives none; references then match within the empty namespace. */
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  body: Record<string, unknown>;
}

export interface ManifestError {
  file: string;
  document?: number;
  kind?: string;
  name?: string;
  field?: string;
  message: string;
}

export function formatManifestError(error: ManifestError): string {
  const document =
    error.document === undefined ? '' : ` document ${error.document}${error.kind ? ` (${error.kind}${error.name ? ` "${error.name}"` : ''})` : ''}`;
  return `${error.file}:${document}: ${error.field ? `${error.field}: ` : ''}${error.message}`;
}

export interface ManifestFile {
  /** As the user should see it in errors (relative to the directory given). */
  file: string;
  text: string;
}

function stringMap(value: unknown, where: string, report: (field: string, message: string) => void): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isJsonObject(value)) {
    report(where, 'must be a map of strings');
    return {};
  }
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') report(`${where}.${key}`, 'must be a string (quote it)');
    else out[key] = item;
  }
  return out;
}

/** Parses every document of every file; documents with errors are left out of `documents`. */
export function parseManifestFiles(files: readonly ManifestFile[]): { documents: ManifestDocument[]; errors: ManifestError[] } {
  const documents: ManifestDocument[] = [];
  const errors: ManifestError[] = [];
  for (const { file, text } of files) {
    const parsed = parseAllDocuments(text, { prettyErrors: false, uniqueKeys: true });
    // A stream the parser cannot split into documents at all comes back as an EmptyStream with errors.
    const list = Array.isArray(parsed) ? parsed : [];
    if (!Array.isArray(parsed)) {
      for (const error of (parsed as { errors?: { message: string }[] }).errors ?? []) errors.push({ file, message: `YAML syntax error: ${error.message}` });
      continue;
    }
    let position = 0;
    for (const document of list) {
      position += 1;
      if (document.errors.length > 0) {
        // The first error of a document is the one to fix; the rest usually follow from it.
        for (const error of document.errors.slice(0, 1)) {
          const before = text.slice(0, error.pos[0]).split('\n');
          const where = ` at line ${before.length}, column ${before.at(-1)!.length + 1}`;
          errors.push({ file, document: position, message: `YAML syntax error${where}: ${error.message.split('\n')[0]}` });
        }
        continue;
      }
      const value: unknown = document.toJS({ maxAliasCount: 100 });
      // A `---` at the end or a comment-only document is no manifest; skip it quietly.
      if (value === null || value === undefined) continue;
      const report = (field: string | undefined, message: string, kind?: string, name?: string) =>
        errors.push({ file, document: position, ...(kind ? { kind } : {}), ...(name ? { name } : {}), ...(field ? { field } : {}), message });
      if (!isJsonObject(value)) {
        report(undefined, 'is not a Kubernetes object (a map with apiVersion, kind and metadata)');
        continue;
      }
      const kind = value.kind;
      const metadata = value.metadata;
      const name = isJsonObject(metadata) && typeof metadata.name === 'string' ? metadata.name : undefined;
      if (typeof kind !== 'string' || kind === '') {
        report('kind', 'is missing', undefined, name);
        continue;
      }
      if (!(kind in MANIFEST_KINDS)) {
        report('kind', `"${kind}" is not a ZTP manifest kind this client applies; expected one of ${Object.keys(MANIFEST_KINDS).join(', ')}`, kind, name);
        continue;
      }
      const expectedVersion = MANIFEST_KINDS[kind as ManifestKind];
      let valid = true;
      const reportHere = (field: string, message: string) => {
        valid = false;
        report(field, message, kind, name);
      };
      if (value.apiVersion !== expectedVersion)
        reportHere('apiVersion', `must be ${expectedVersion} for a ${kind}, not ${JSON.stringify(value.apiVersion ?? null)}`);
      if (!isJsonObject(metadata)) {
        reportHere('metadata', 'is missing');
        continue;
      }
      if (!name) reportHere('metadata.name', 'is missing');
      else if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(name))
        reportHere('metadata.name', `"${name}" is not a Kubernetes object name (lower-case letters, digits, '-' and '.')`);
      if (metadata.namespace !== undefined && typeof metadata.namespace !== 'string') reportHere('metadata.namespace', 'must be a string');
      const labels = stringMap(metadata.labels, 'metadata.labels', reportHere);
      const annotations = stringMap(metadata.annotations, 'metadata.annotations', reportHere);
      if (!valid || !name) continue;
      documents.push({
        file,
        index: position,
        kind: kind as ManifestKind,
        name,
        namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
        labels,
        annotations,
        body: value,
      });
    }
  }
  return { documents, errors };
}

/** The *.yaml, *.yml and *.json files directly in `dir`, in name order. */
export function readManifestDir(dir: string): ManifestFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    throw new Error(`cannot read manifest directory ${dir}: ${(error as Error).message}`);
  }
  return names
    .filter((name) => /\.(ya?ml|json)$/i.test(name) && statSync(path.join(dir, name)).isFile())
    .sort()
    .map((name) => ({ file: name, text: readFileSync(path.join(dir, name), 'utf8') }));
}
