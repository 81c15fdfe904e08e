/**
 * The import DAG of the client, written down and checked: wire/ at the leaf
 * (no I/O, nothing else of ours), each layer importing only lower ones, and
 * test helpers and the control plane reachable from tests only.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(fileURLToPath(import.meta.url));

/** Rank of each production module; a module may import only strictly lower ranks (wire/ also within itself). */
const RANK: Record<string, number> = {
  'wire/*': 0,
  'schema/*.gen.ts': 0,
  'framing.ts': 1,
  'timers.ts': 1,
  'build.ts': 1,
  'replay.ts': 1,
  'schema/generate.ts': 1,
  'schema/index.ts': 1,
  'schema/claims.ts': 1,
  'rpc.ts': 2,
  'transport.ts': 2,
  'client.ts': 3,
  'cache-rows.ts': 1,
  'cache.ts': 4,
  'cluster.ts': 5,
  'effects.ts': 5,
  'members.ts': 6,
  'session.ts': 7,
  'index.ts': 8,
};

function rankOf(rel: string): number | undefined {
  if (rel.startsWith('wire/')) return RANK['wire/*'];
  if (/^schema\/.*\.gen\.ts$/.test(rel)) return RANK['schema/*.gen.ts'];
  return RANK[rel];
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'/gm)].map(
    (m) => m[1] ?? m[2] ?? '',
  );
}

const production = walk(ROOT).filter(
  (f) => !f.endsWith('.test.ts') && !f.endsWith('.fuzz.ts') && !relative(ROOT, f).startsWith('testing/'),
);

describe('ovsdb client layering', () => {
  it('every production module has a rank', () => {
    expect(production.map((f) => relative(ROOT, f)).filter((r) => rankOf(r) === undefined)).toEqual([]);
  });

  it.each(production.map((f) => [relative(ROOT, f), f]))('%s imports only lower layers', (rel, file) => {
    const mine = rankOf(rel) as number;
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) {
        // Node built-ins and packages: none in wire/ (no I/O at the leaf) or in generated files.
        if (rel.startsWith('wire/') || rel.endsWith('.gen.ts')) expect.fail(`${rel} imports ${spec}`);
        continue;
      }
      const target = relative(ROOT, resolve(dirname(file), spec));
      if (target.startsWith('..')) {
        // Outside the client: only model/addr (address validation), and only from transport.
        expect([rel, target.replace(/^(\.\.\/)+/, '')], `${rel} imports ${spec}`).toEqual([
          'transport.ts',
          'model/addr/index.ts',
        ]);
        continue;
      }
      expect(target.startsWith('testing/') || target.endsWith('.test.ts'), `${rel} imports test code ${spec}`).toBe(
        false,
      );
      const theirs = rankOf(target);
      if (rel.startsWith('wire/') && target.startsWith('wire/')) continue;
      expect(theirs, `${rel} imports ${target}`).toBeDefined();
      expect(theirs as number, `${rel} (rank ${mine}) imports ${target} (rank ${theirs})`).toBeLessThan(mine);
    }
  });
});
