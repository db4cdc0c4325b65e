/** Manifest sets for the ZTP tests: the shipped examples, changed one document at a time. */
import YAML from 'yaml';
import type { ManifestFile } from '../../cli/ztp/manifests.js';

/** The set with `change` applied to every document of `kind` in `file`; the other files as they were. */
export function editManifest(files: ManifestFile[], file: string, kind: string, change: (document: any) => void): ManifestFile[] {
  return files.map((f) => {
    if (f.file !== file) return f;
    const documents = YAML.parseAllDocuments(f.text).map((d) => d.toJS());
    for (const document of documents) if (document.kind === kind) change(document);
    return { file, text: documents.map((d) => YAML.stringify(d)).join('---\n') };
  });
}
