/**
 * What kovn ships validates against the description: every object of the
 * shipped scenarios (top-level documents and those their steps apply) and
 * every manifest under deploy/ fits the built-in schemas and kovn's own CRDs
 * (deploy/crds), with no cause, not even an unknown field.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../cluster/types.ts';
import { createCatalog } from './catalog.ts';
import { readCrdFiles } from './description.ts';
import { validateObject } from './validate.ts';

const ROOT = join(import.meta.dirname, '../../..');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

function objectsOf(file: string): KubeObject[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as KubeObject | null);
  return docs.flatMap((d): KubeObject[] => {
    if (!d || typeof d.kind !== 'string') return [];
    if (d.kind !== 'Scenario') return [d];
    const steps = ((d.spec as { steps?: { apply?: KubeObject[] }[] } | undefined)?.steps ?? []).flatMap(
      (s) => s.apply ?? [],
    );
    return steps;
  });
}

describe('shipped objects', () => {
  const catalog = createCatalog();
  for (const crd of readCrdFiles([join(ROOT, 'deploy/crds')])) catalog.registerCrd(crd);
  const files = [...yamlFiles(join(ROOT, 'scenarios')), ...yamlFiles(join(ROOT, 'deploy'))];

  it('registers every kovn CRD', () => {
    for (const kind of ['Subnet', 'Vpc', 'IP', 'IPPool']) {
      expect(catalog.byKind('kubeovn.io/v1', kind)?.origin, kind).toEqual({ crd: expect.any(String) });
    }
  });

  it.each(files.map((f) => [f.slice(ROOT.length + 1), f]))('%s validates with no cause', (_name, file) => {
    const problems = objectsOf(file).flatMap((o) => {
      const r = catalog.byKind(o.apiVersion, o.kind);
      return r ? validateObject(r, o).map((c) => `${o.kind} ${o.metadata.name}: ${c.field}: ${c.message}`) : [];
    });
    expect(problems).toEqual([]);
  });
});
