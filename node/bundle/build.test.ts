import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, readlink, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_ENTRIES, BundleError, REPO_ROOT, bundlePath, ensureBundled, ensurePluginBuilt } from './index.ts';

let root: string;
const entry = { name: 'hello', dir: 't', source: 'src/main.ts', aliases: ['hello-too'] };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kovn-bundle-'));
  await mkdir(join(root, 'src'));
  await writeFile(
    join(root, 'src/main.ts'),
    "import { EOL } from 'node:os';\nimport { word } from './dep.ts';\nprocess.stdout.write(word + EOL);\n",
  );
  await writeFile(join(root, 'src/dep.ts'), "export const word: string = 'one';\n");
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('node/bundle', () => {
  it('builds an executable named by the entry, with its aliases, that runs without a TypeScript loader', async () => {
    const b = await ensureBundled(entry, { root });
    expect(b).toMatchObject({ path: join(root, 'dist/t/hello'), built: true });
    expect(statSync(b.path).mode & 0o111).not.toBe(0);
    expect((await readFile(b.path, 'utf8')).split('\n')[0]).toBe(`#!${process.execPath}`);
    expect(await readlink(join(root, 'dist/t/hello-too'))).toBe('hello');
    expect(execFileSync(b.path, { encoding: 'utf8' })).toBe('one\n');
    expect(execFileSync(join(root, 'dist/t/hello-too'), { encoding: 'utf8' })).toBe('one\n');
  });

  it('does not rebuild a fresh output; rebuilds when an imported source changes', async () => {
    expect((await ensureBundled(entry, { root })).built).toBe(false);
    const dep = join(root, 'src/dep.ts');
    await writeFile(dep, "export const word: string = 'two';\n");
    const later = new Date((await stat(join(root, 'dist/t/hello'))).mtimeMs + 5_000);
    await utimes(dep, later, later);
    const b = await ensureBundled(entry, { root });
    expect(b.built).toBe(true);
    expect(execFileSync(b.path, { encoding: 'utf8' })).toBe('two\n');
    expect((await ensureBundled(entry, { root })).built).toBe(false);
  });

  it('rebuilds when the output is gone, or the interpreter differs', async () => {
    await rm(join(root, 'dist/t/hello'));
    expect((await ensureBundled(entry, { root })).built).toBe(true);
    const other = await ensureBundled(entry, { root, node: '/usr/bin/env node' });
    expect(other.built).toBe(true);
    expect((await readFile(other.path, 'utf8')).split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  it('rebuilds when the stamp was made with other build options', async () => {
    await ensureBundled(entry, { root });
    expect((await ensureBundled(entry, { root })).built).toBe(false);
    const stampPath = join(root, 'dist/t/hello.stamp.json');
    const stamp = JSON.parse(await readFile(stampPath, 'utf8'));
    await writeFile(stampPath, JSON.stringify({ ...stamp, recipe: '{"format":"esm"}' }));
    expect((await ensureBundled(entry, { root })).built).toBe(true);
    expect((await ensureBundled(entry, { root })).built).toBe(false);
  });

  it('a copy runs anywhere: under a package.json of "type": "module" and under none', async () => {
    const b = await ensureBundled(entry, { root, node: process.execPath });
    for (const [dir, pkg] of [
      ['esm', '{"type":"module"}'],
      ['cjs', '{"type":"commonjs"}'],
      ['bare', undefined],
    ] as const) {
      await mkdir(join(root, 'copies', dir), { recursive: true });
      if (pkg) await writeFile(join(root, 'copies', dir, 'package.json'), pkg);
      await copyFile(b.path, join(root, 'copies', dir, 'hello'));
      expect(execFileSync(join(root, 'copies', dir, 'hello'), { encoding: 'utf8' }), dir).toBe('two\n');
    }
  });

  it('concurrent callers in one process share one build', async () => {
    await rm(join(root, 'dist/t/hello'));
    const [a, b] = await Promise.all([ensureBundled(entry, { root }), ensureBundled(entry, { root })]);
    expect(a).toBe(b);
  });

  it('a source that does not compile is a BundleError naming it', async () => {
    await writeFile(join(root, 'src/bad.ts'), 'export const = ;\n');
    const bad = { name: 'bad', dir: 't', source: 'src/bad.ts' };
    await expect(ensureBundled(bad, { root })).rejects.toThrow(BundleError);
    await expect(ensureBundled(bad, { root })).rejects.toThrow(/bundling src\/bad\.ts failed/);
    expect(existsSync(bundlePath(bad, { root }))).toBe(false);
  });

  it('an output that cannot be written is a BundleError naming it and the cause', async () => {
    const outDir = join(root, 'src/dep.ts', 'dist');
    await expect(ensureBundled(entry, { root, outDir })).rejects.toThrow(
      new RegExp(`writing ${outDir}/t/hello \\(from src/main\\.ts\\) failed: ENOTDIR`),
    );
  });

  it("the repository's entries exist, and ensurePluginBuilt gives dist/cni/kovn", async () => {
    for (const e of BUNDLE_ENTRIES) expect(existsSync(join(REPO_ROOT, e.source)), e.source).toBe(true);
    expect(await ensurePluginBuilt()).toBe(join(REPO_ROOT, 'dist/cni/kovn'));
  });
});
