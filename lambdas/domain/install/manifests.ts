/**
 * Custom cluster manifests: which folders, file names and contents upstream accepts
 * (internal/manifests/manifests.go), plus the few limits our storage needs. Pure: each check
 * returns `undefined` when the value is acceptable, otherwise a reason a person can act on.
 */
import { parseAllDocuments, type Document } from 'yaml';
import type { Manifest } from '../core/entities.js';
import { errorMessage } from '../core/errors.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';

type Reason = string | undefined;

export const MANIFEST_FOLDERS = ['manifests', 'openshift'] as const;
export type ManifestFolder = (typeof MANIFEST_FOLDERS)[number];
/** Upstream's default when a request names no folder. */
export const DEFAULT_FOLDER: ManifestFolder = 'manifests';

/**
 * Upstream's limit on the decoded content: a ConfigMap, one of the resources a manifest may
 * create, cannot exceed 1 MiB.
 */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * Ours, not upstream's: the installer writes each manifest as a file (255 bytes is the usual
 * file-name limit) and S3 keys and DynamoDB sort keys stop at 1024 bytes, so a longer name could
 * only fail later, as a 5xx.
 */
export const MAX_FILE_NAME_BYTES = 255;

/** The cluster states before installation; upstream refuses manifest changes in any other. */
export const MANIFEST_EDITABLE_STATES: ReadonlySet<string> = new Set(['pending-for-input', 'insufficient', 'ready']);

/** RFC 6902 operations, as the patch library the installer flow uses (krishicks/yaml-patch) knows them. */
const PATCH_OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

export type ManifestKind = 'yaml' | 'json' | 'patch';

/** What the API shows of a manifest. */
export interface ManifestView {
  folder: string;
  file_name: string;
  manifest_source: 'user' | 'system';
}

export function manifestView(manifest: Pick<Manifest, 'folder' | 'fileName' | 'source'>): ManifestView {
  return { folder: manifest.folder, file_name: manifest.fileName, manifest_source: manifest.source };
}

/** Where the content lives in the files bucket. */

/** `manifests/99-x.yaml`: how upstream names a manifest in its messages. */
export const manifestPath = (folder: string, fileName: string) => `${folder}/${fileName}`;

export function isManifestFolder(folder: string): folder is ManifestFolder {
  return (MANIFEST_FOLDERS as readonly string[]).includes(folder);
}

/** A file of the same name may not live in both folders (upstream's validateFileDistinct). */
export function otherFolder(folder: ManifestFolder): ManifestFolder {
  return folder === 'manifests' ? 'openshift' : 'manifests';
}

export function folderProblem(folder: string): Reason {
  return isManifestFolder(folder) ? undefined : `folder must be one of ${MANIFEST_FOLDERS.join(', ')}, got "${folder}"`;
}

export function editableProblem(clusterId: string, status: string): Reason {
  if (MANIFEST_EDITABLE_STATES.has(status)) return undefined;
  return `Cluster ${clusterId} is ${status}: manifests can be changed only before the installation starts (in ${[...MANIFEST_EDITABLE_STATES].join(', ')})`;
}

/** Go's filepath.Ext: from the last dot of the name on, or '' when there is none. */
function extension(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? '' : fileName.slice(dot);
}

/**
 * The name rules upstream applies to every operation (a leading dot, no name before the
 * extension, a space, a directory), plus ours: not empty, no control characters (they cannot go
 * into the download's Content-Disposition header) and not longer than MAX_FILE_NAME_BYTES.
 */
export function fileNameProblem(fileName: string): Reason {
  if (fileName.length === 0) return 'file_name must not be empty';
  if (fileName.includes('/')) return `Manifest file name "${fileName}" must not include a directory; choose the folder with "folder"`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this check refuses
  if (/[\u0000-\u001f\u007f]/.test(fileName)) return 'Manifest file name must not contain control characters (tabs, line breaks…)';
  const stem = fileName.slice(0, fileName.length - extension(fileName).length);
  if (fileName.startsWith('.') || stem.trim().length === 0) {
    return `Manifest file name "${fileName}" is invalid: it must not start with a dot and needs a name before its extension`;
  }
  if (Buffer.byteLength(fileName, 'utf8') > MAX_FILE_NAME_BYTES) return `Manifest file name must be at most ${MAX_FILE_NAME_BYTES} bytes long`;
  return undefined;
}

/**
 * Upstream refuses a space in a manifest's name with 422, not 400, and names the cluster: a rule of
 * its own apart from the others (fileNameProblem checks the rest).
 */
export function fileNameSpaceProblem(fileName: string, clusterId: string): Reason {
  return fileName.includes(' ') ? `Cluster manifest ${fileName} for cluster ${clusterId} should not include a space in its name.` : undefined;
}

/** How the content is checked, by the last extension (upstream: .yaml/.yml, .json, .patch…). */
export function manifestKind(fileName: string): ManifestKind | undefined {
  const ext = extension(fileName);
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  if (ext === '.json') return 'json';
  if (ext.startsWith('.patch')) return 'patch';
  return undefined;
}

/**
 * Decodes the base64 content as upstream does (Go's standard alphabet with padding, where line
 * breaks are skipped). Node's decoder silently drops anything it does not understand, so the
 * text is checked first: otherwise a typo would store garbage.
 */
export function decodeManifestContent(content: string | null | undefined, path: string): { bytes: Uint8Array } | { problem: string } {
  if (content === undefined || content === null) return { problem: `Manifest content of file ${path} is missing: send it base64-encoded in "content"` };
  if (content.trim().length === 0) return { problem: `Manifest content of file ${path} is empty` };
  const compact = content.replace(/[\r\n]/g, '');
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact)) {
    return {
      problem: `Manifest content of file ${path} is not valid base64: encode the file with standard base64 (e.g. "base64 -w0 ${path.split('/').pop()}")`,
    };
  }
  return { bytes: Buffer.from(compact, 'base64') };
}

/** Size, then the format its name promises. `path` is `folder/file_name`, as upstream words it. */
export function contentProblem(bytes: Uint8Array, path: string): Reason {
  if (bytes.length > MAX_MANIFEST_BYTES) {
    return `Manifest content of file ${path} is ${bytes.length} bytes, over the maximum of 1 MiB (${MAX_MANIFEST_BYTES} bytes)`;
  }
  const kind = manifestKind(path);
  if (!kind) return `Manifest file name of ${path} is invalid: only .yaml, .yml, .json and .patch files are supported`;
  let text: string;
  try {
    // ignoreBOM keeps a byte-order mark in the text, so JSON with one is refused, like Go's json.Valid refuses it.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: kind === 'json' }).decode(bytes);
  } catch {
    return `Manifest content of file ${path} is not UTF-8 text`;
  }
  if (kind === 'json') return jsonProblem(text, path);
  const parsed = parseYaml(text);
  if ('problem' in parsed) {
    return kind === 'patch'
      ? `Patch content of file ${path} is invalid: ${parsed.problem}`
      : `Manifest content of file ${path} has an invalid YAML format: ${parsed.problem}`;
  }
  if (kind === 'patch') {
    const problem = patchProblem(parsed.values[0]);
    return problem ? `Patch content of file ${path} is invalid: ${problem}` : undefined;
  }
  return undefined;
}

function jsonProblem(text: string, path: string): Reason {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return `Manifest content of file ${path} has an illegal JSON format: ${errorMessage(error)}`;
  }
}

/**
 * Every document of a (multi-document) YAML stream, as Go's yaml.v2 decoder reads them: YAML 1.1,
 * duplicate keys allowed; unresolved aliases and alias bombs are errors.
 */
function parseYaml(text: string): { values: unknown[] } | { problem: string } {
  let documents: Document.Parsed[];
  try {
    documents = parseAllDocuments(text, { uniqueKeys: false, version: '1.1' });
  } catch (error) {
    return { problem: firstLine(errorMessage(error)) };
  }
  const values: unknown[] = [];
  for (const document of Array.isArray(documents) ? documents : []) {
    const error = document.errors[0];
    if (error) return { problem: firstLine(error.message) };
    try {
      values.push(document.toJS());
    } catch (failure) {
      return { problem: firstLine(errorMessage(failure)) };
    }
  }
  return { values };
}

const firstLine = (message: string) => message.split('\n')[0]!.replace(/:\s*$/, '');

/**
 * The first document must be a list of RFC 6902 operations (an empty patch is allowed, as
 * upstream). Upstream only checks that it decodes into operations; we also refuse an unknown
 * `op` or a `path`/`from` without its leading '/', which its patch library rejects only later,
 * when the installation applies the patch.
 */
function patchProblem(patch: unknown): Reason {
  if (patch === null || patch === undefined) return undefined;
  if (!Array.isArray(patch)) return 'a patch must be a list of operations such as "- op: add\\n  path: /metadata/labels/x\\n  value: y"';
  for (const [index, operation] of patch.entries()) {
    const where = `operation ${index + 1}`;
    if (!isJsonObject(operation)) return `${where} must be a mapping with op and path`;
    const { op, path, from } = operation;
    if (typeof op !== 'string' || !PATCH_OPS.has(op)) return `${where}: op must be one of ${[...PATCH_OPS].join(', ')}`;
    if (typeof path !== 'string' || !path.startsWith('/')) return `${where}: path must be a JSON pointer starting with '/'`;
    if ((op === 'move' || op === 'copy') && (typeof from !== 'string' || !from.startsWith('/'))) {
      return `${where}: ${op} needs "from", a JSON pointer starting with '/'`;
    }
  }
  return undefined;
}

/**
 * `attachment; filename="…"` as upstream's file responder writes it (Go's %q). Names with
 * characters beyond ASCII get an ASCII fallback plus RFC 6266's `filename*`, since HTTP header
 * values cannot carry them safely.
 */
export function contentDisposition(fileName: string): string {
  const quoted = `"${fileName.replace(/[\\"]/g, '\\$&')}"`;
  if (/^[\x20-\x7e]*$/.test(fileName)) return `attachment; filename=${quoted}`;
  const fallback = `"${fileName.replace(/[^\x20-\x7e]/g, '_').replace(/[\\"]/g, '\\$&')}"`;
  return `attachment; filename=${fallback}; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
