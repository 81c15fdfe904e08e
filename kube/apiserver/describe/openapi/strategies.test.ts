/**
 * The two copies of the built-in kinds' patch strategies agree: the one
 * kubectl reads (the x-kubernetes-patch-* extensions of our /openapi/v2,
 * generate.ts) and the one the HTTP side merges with
 * (kube/apiserver/http/patch/strategies.ts). A list kubectl would send as
 * merged by a key must be merged by the same key on the server, and a list
 * the server merges must be one kubectl knows to merge.
 */
import { describe, expect, it } from 'vitest';
import { strategyOf } from '../../http/patch/strategies.ts';
import { BUILTIN_DEFINITIONS, KIND_MODELS } from './builtin.gen.ts';

type Json = Readonly<Record<string, unknown>>;
const defs = BUILTIN_DEFINITIONS as Readonly<Record<string, Json>>;
const resolve = (s: Json): Json =>
  typeof s.$ref === 'string' ? (defs[s.$ref.replace('#/definitions/', '')] ?? {}) : s;

interface Found {
  readonly path: string;
  readonly ours: string | undefined;
  readonly server: string | undefined;
}

/** Every array field under a kind (a few levels deep), with both sides' merge key. */
function listFields(schema: Json, path: readonly string[], out: Found[], depth: number): void {
  if (depth > 9) return;
  const s = resolve(schema);
  for (const [k, raw] of Object.entries((s.properties as Record<string, Json> | undefined) ?? {})) {
    const p = resolve(raw);
    const here = [...path, k];
    if (p.type === 'array') {
      const strategy = String(raw['x-kubernetes-patch-strategy'] ?? '');
      const key = raw['x-kubernetes-patch-merge-key'];
      const ours = typeof key === 'string' ? key : strategy.includes('merge') ? '(set)' : undefined;
      const st = strategyOf(here);
      const server = st?.mergeKey ?? (st?.set ? '(set)' : undefined);
      out.push({ path: here.join('.'), ours, server });
      if (p.items) listFields(p.items as Json, here, out, depth + 1);
    } else if (p.properties) listFields(p, here, out, depth + 1);
  }
}

describe('patch strategies', () => {
  it.each(Object.entries(KIND_MODELS).filter(([k]) => k !== 'CustomResourceDefinition'))(
    '%s: kubectl and the server merge the same lists by the same keys',
    (_kind, model) => {
      const found: Found[] = [];
      listFields(defs[model]!, [], found, 0);
      expect(found.filter((f) => f.ours !== f.server)).toEqual([]);
    },
  );
});
