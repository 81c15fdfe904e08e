/**
 * Reading the install manifests of deploy/ for the tests that check them:
 * every YAML document of a folder, with the file it came from.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const ROOT = join(import.meta.dirname, '..', '..');
export const DEPLOY = join(ROOT, 'deploy');

/** A Kubernetes object of a manifest file. */
export interface ManifestObject {
  readonly file: string;
  readonly object: Record<string, unknown> & {
    readonly apiVersion: string;
    readonly kind: string;
    readonly metadata: { readonly name: string; readonly namespace?: string };
  };
}

/** The YAML files under `dir`, repository-relative, sorted. */
export function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(name)) out.push(relative(ROOT, p));
  }
  return out;
}

/**
 * Every object of the YAML files under `dir`. A document that does not parse
 * throws, naming the file: a manifest that kubectl could not read must fail.
 *
 * @example readManifests(join(DEPLOY, 'crds')).map((m) => m.object.metadata.name)
 */
export function readManifests(dir: string): ManifestObject[] {
  const out: ManifestObject[] = [];
  for (const file of yamlFiles(dir)) {
    for (const doc of parseAllDocuments(readFileSync(join(ROOT, file), 'utf8'))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
      const object = doc.toJS() as ManifestObject['object'] | null;
      if (object !== null) out.push({ file, object });
    }
  }
  return out;
}
