/**
 * The layer rule of docs/architecture.md ("Layers and the import rule") as data, and a checker over source files.
 * `checkLayers` is pure (files in, violations out) so that its own test can
 * feed it a violation and see it caught.
 */

export type Layer =
  | 'model'
  | 'sim'
  | 'backends'
  | 'kube'
  | 'controller'
  | 'node'
  | 'verify'
  | 'scenarios'
  | 'bench'
  | 'cli'
  | 'test'
  | 'scripts';

/** Which of our layers each layer may import (itself always allowed). */
export const ALLOWED: Readonly<Record<Layer, readonly Layer[]>> = {
  model: [],
  sim: ['model'],
  backends: ['model', 'sim'],
  kube: ['model'],
  controller: ['model', 'kube', 'backends'],
  node: ['model', 'kube', 'backends'],
  verify: ['model', 'sim', 'backends', 'kube', 'controller', 'node'],
  scenarios: ['model', 'sim', 'backends', 'kube', 'controller', 'node', 'verify'],
  bench: ['model', 'sim', 'backends', 'kube', 'controller', 'node', 'verify', 'scenarios'],
  cli: ['model', 'sim', 'backends', 'kube', 'controller', 'node', 'verify', 'scenarios', 'bench'],
  test: ['model', 'sim', 'backends', 'kube', 'controller', 'node', 'verify', 'scenarios', 'bench', 'cli'],
  scripts: [],
};

/**
 * Narrower rules inside a permitted edge: the controller reaches backends only
 * through the interface; the node agent only through the OVSDB client and the
 * Open_vSwitch table descriptions and codec (backends/ovn/vswitch/).
 */
const ONLY_PATHS: Partial<Record<Layer, Partial<Record<Layer, RegExp>>>> = {
  controller: { backends: /^backends\/backend\.ts$/ },
  node: { backends: /^backends\/(backend\.ts|ovn\/ovsdb\/|ovn\/vswitch\/)/ },
};

/**
 * What test-only files may reach beyond ONLY_PATHS: the node agent's tests
 * start a real ovsdb-server (backends/ovn/control-plane), which the node
 * agent itself never does.
 */
const TEST_ONLY_PATHS: Partial<Record<Layer, Partial<Record<Layer, RegExp>>>> = {
  node: { backends: /^backends\/ovn\/control-plane\// },
};

/** Pure layers must not do I/O: no Node built-ins, and only these packages. */
const PURE_PACKAGES: Partial<Record<Layer, readonly string[]>> = {
  model: [],
  sim: [],
};
/** Test-only files of pure layers may use these. */
const TEST_PACKAGES = ['vitest', 'fast-check', 'ip-num'];

export interface SourceFile {
  /** Repository-relative, forward slashes. */
  readonly path: string;
  readonly source: string;
}

export interface Violation {
  readonly file: string;
  readonly specifier: string;
  readonly reason: string;
}

const IMPORT_RE =
  /(?:^|[\s;])(?:import|export)\s[^'"`]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

export function importsOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec) out.push(spec);
  }
  return out;
}

export function layerOf(path: string): Layer | undefined {
  const top = path.split('/')[0] as Layer;
  return top in ALLOWED ? top : undefined;
}

function resolveRelative(from: string, spec: string): string {
  const parts = from.split('/').slice(0, -1);
  for (const seg of spec.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.') parts.push(seg);
  }
  return parts.join('/');
}

/**
 * Declared layers with no folder among `folders` (the repository's top-level
 * entries). A declared layer must exist: a rule about a folder that is not
 * there checks nothing, and a checker that skips it passes whatever comes.
 *
 * @example
 * missingLayers(['model', 'sim']) // ['backends', 'kube', ..., 'scripts']
 */
export function missingLayers(folders: readonly string[]): Layer[] {
  const present = new Set(folders);
  return (Object.keys(ALLOWED) as Layer[]).filter((l) => !present.has(l));
}

/**
 * Files only tests load: test files, property generators, the test folder,
 * and `testing/` folders (test fixtures beside the code they set up, such as
 * a world that starts an ovsdb-server). A file that is not test-only may not
 * import a `testing/` folder, so what they may reach never reaches production.
 */
const isTestOnly = (path: string) => /\.(test|fuzz)\.ts$|\/arbitrary[-\w]*\.ts$|^test\/|\/testing\//.test(path);
const isTestingPath = (path: string) => /(^|\/)testing\//.test(path);

export function checkLayers(files: readonly SourceFile[]): Violation[] {
  const violations: Violation[] = [];
  for (const file of files) {
    const from = layerOf(file.path);
    if (!from) continue;
    for (const spec of importsOf(file.source)) {
      if (spec.startsWith('.')) {
        const target = resolveRelative(file.path, spec);
        if (isTestingPath(target) && !isTestOnly(file.path)) {
          violations.push({ file: file.path, specifier: spec, reason: 'only tests may import a testing/ folder' });
          continue;
        }
        const to = layerOf(target);
        if (!to || to === from) continue;
        if (to === 'test' && isTestOnly(file.path)) continue;
        if (!ALLOWED[from].includes(to)) {
          violations.push({ file: file.path, specifier: spec, reason: `${from}/ may not import ${to}/` });
          continue;
        }
        const only = ONLY_PATHS[from]?.[to];
        const testOnly = isTestOnly(file.path) ? TEST_ONLY_PATHS[from]?.[to] : undefined;
        if (only && !only.test(target) && !testOnly?.test(target)) {
          violations.push({
            file: file.path,
            specifier: spec,
            reason: `${from}/ may reach ${to}/ only through ${only}`,
          });
        }
        continue;
      }
      const allowedPkgs = PURE_PACKAGES[from];
      if (allowedPkgs === undefined) continue;
      const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec);
      if (allowedPkgs.includes(pkg)) continue;
      if (isTestOnly(file.path) && TEST_PACKAGES.includes(pkg)) continue;
      violations.push({
        file: file.path,
        specifier: spec,
        reason: `${from}/ is pure: it may not import ${JSON.stringify(pkg)}`,
      });
    }
  }
  return violations;
}
