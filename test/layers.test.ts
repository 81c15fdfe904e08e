import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALLOWED, checkLayers, importsOf, missingLayers, type SourceFile } from './layers.ts';

const ROOT = join(import.meta.dirname, '..');
/** The layer folders: every declared layer but the test and scripts folders. */
const TOP = Object.keys(ALLOWED).filter((l) => l !== 'test' && l !== 'scripts');

function sources(dir: string, out: SourceFile[] = []): SourceFile[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith('.ts'))
      out.push({ path: relative(ROOT, p).split('\\').join('/'), source: readFileSync(p, 'utf8') });
  }
  return out;
}

describe('layer rule (docs/architecture.md)', () => {
  it('every declared layer has its folder', () => {
    const folders = readdirSync(ROOT).filter((n) => statSync(join(ROOT, n)).isDirectory());
    expect(missingLayers(folders)).toEqual([]);
  });

  it('a declared layer with no folder fails the check', () => {
    const all = Object.keys(ALLOWED);
    expect(missingLayers(all)).toEqual([]);
    expect(missingLayers(all.filter((l) => l !== 'node'))).toEqual(['node']);
    expect(missingLayers([...all.filter((l) => l !== 'kube' && l !== 'verify'), 'docs'])).toEqual(['kube', 'verify']);
  });

  it('holds for every source file in the repository', () => {
    // No folder is skipped: a missing one throws here (and fails the test above).
    const files = TOP.flatMap((t) => sources(join(ROOT, t)));
    for (const t of TOP)
      expect(
        files.some((f) => f.path.startsWith(`${t}/`)),
        `no source in ${t}/`,
      ).toBe(true);
    expect(checkLayers(files)).toEqual([]);
  });

  it('type-checks and tests every layer folder (tsconfig.json, vitest.config.ts)', () => {
    const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    const vitest = readFileSync(join(ROOT, 'vitest.config.ts'), 'utf8');
    const globbed = /include: \['\{([\w,]+)\}\/\*\*\/\*\.test\.ts'\]/.exec(vitest)?.[1]?.split(',') ?? [];
    for (const layer of [...TOP, 'test']) {
      expect(tsconfig.include, `tsconfig.json include lacks ${layer}`).toContain(layer);
      expect(globbed, `vitest.config.ts include lacks ${layer}`).toContain(layer);
    }
  });

  it('catches imports that cross a layer the wrong way', () => {
    const v = checkLayers([
      { path: 'model/ipam/x.ts', source: "import { Backend } from '../../backends/backend.ts';" },
      { path: 'model/addr/y.ts', source: "import { readFileSync } from 'node:fs';" },
      { path: 'sim/a.ts', source: "export { x } from '../backends/ovn/index.ts';" },
      { path: 'sim/b.ts', source: "const m = await import('../controller/x.ts');" },
      { path: 'controller/c.ts', source: "import { OvsdbClient } from '../backends/ovn/ovsdb/index.ts';" },
      { path: 'model/match/arbitrary.ts', source: "import fc from 'fast-check';" },
      { path: 'model/match/m.ts', source: "import fc from 'fast-check';" },
      { path: 'sim/ok.ts', source: "import { parseIP } from '../model/addr/index.ts';" },
      { path: 'controller/ok.ts', source: "import type { Backend } from '../backends/backend.ts';" },
      { path: 'node/ovs/a.ts', source: "import { x } from '../../backends/ovn/control-plane/index.ts';" },
      { path: 'node/ovs/a.test.ts', source: "import { x } from '../../backends/ovn/control-plane/index.ts';" },
      { path: 'node/ovs/b.ts', source: "import { x } from '../../backends/ovn/ovsdb/index.ts';" },
      { path: 'node/daemon/testing/w.ts', source: "import { x } from '../../../backends/ovn/control-plane/index.ts';" },
      { path: 'node/daemon/agent.ts', source: "import { w } from './testing/w.ts';" },
      { path: 'node/daemon/agent.test.ts', source: "import { w } from './testing/w.ts';" },
    ]);
    expect(v.map((x) => [x.file, x.reason])).toEqual([
      ['model/ipam/x.ts', 'model/ may not import backends/'],
      ['model/addr/y.ts', 'model/ is pure: it may not import "node:fs"'],
      ['sim/a.ts', 'sim/ may not import backends/'],
      ['sim/b.ts', 'sim/ may not import controller/'],
      ['controller/c.ts', 'controller/ may reach backends/ only through /^backends\\/backend\\.ts$/'],
      ['model/match/m.ts', 'model/ is pure: it may not import "fast-check"'],
      [
        'node/ovs/a.ts',
        'node/ may reach backends/ only through /^backends\\/(backend\\.ts|ovn\\/ovsdb\\/|ovn\\/vswitch\\/)/',
      ],
      ['node/daemon/agent.ts', 'only tests may import a testing/ folder'],
    ]);
  });

  it('finds static, re-export, side-effect and dynamic imports', () => {
    expect(
      importsOf(`import a from './a.ts';\nimport type { B } from "../b.ts";\nexport * from './c.ts';\nimport './d.ts';\nawait import('./e.ts');
import {
  f,
  g,
} from './f.ts';`).sort(),
    ).toEqual(['../b.ts', './a.ts', './c.ts', './d.ts', './e.ts', './f.ts']);
  });
});
