/**
 * Builds the entries of entries.ts into single CommonJS files with esbuild
 * (dist/<dir>/<name>, executable, `#!` naming the node that built them), and
 * rebuilds one only when it is stale: a stamp beside each output records
 * every input file esbuild read with its mtime and size, the esbuild version
 * and the build options (the interpreter among them); any difference means a
 * rebuild. Outputs are written under a temporary name and renamed, so a
 * concurrent reader (another test file, a runtime starting the plugin) sees
 * the old file or the new, whole.
 */
import { chmod, mkdir, readFile, readlink, rename, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_ENTRIES, type BundleEntry } from './entries.ts';

/** The repository this file belongs to. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface BundleOptions {
  /** Where the entries' sources are (default: this repository). */
  readonly root?: string;
  /** Where outputs go (default: `<root>/dist`). */
  readonly outDir?: string;
  /** The interpreter named in the `#!` line (default: the node running this). */
  readonly node?: string;
}

export interface Bundled {
  readonly entry: BundleEntry;
  /** The executable's absolute path. */
  readonly path: string;
  /** Whether this call built it (false: the existing output was fresh). */
  readonly built: boolean;
}

/**
 * @example
 * try { await ensureBundled(entry); } catch (e) { if (e instanceof BundleError) console.error(e.message); }
 */
export class BundleError extends Error {
  override readonly name = 'BundleError';
  readonly code = 'BUILD_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

interface Stamp {
  readonly esbuild: string;
  /** JSON of recipe(): the build options, the interpreter among them. */
  readonly recipe: string;
  readonly source: string;
  /** Root-relative path → what it was when the output was built. */
  readonly inputs: Readonly<Record<string, { readonly mtimeMs: number; readonly size: number }>>;
}

/** Closes the banner's function and calls it with CommonJS's `require`, or one made for ES module scope. */
const BOTH_MODULE_SYSTEMS = [
  '}',
  'if (typeof require === "function") kovnEntry(require);',
  'else import("node:module").then((m) => kovnEntry(m.createRequire(process.argv[1])));',
].join('\n');

/** Builds in progress in this process, so concurrent callers share one build. */
const inFlight = new Map<string, Promise<Bundled>>();

/**
 * The executable's path for an entry, built or not.
 *
 * @example
 * bundlePath(BUNDLE_ENTRIES[0]) // '<repo>/dist/cni/kovn'
 */
export function bundlePath(entry: BundleEntry, options: BundleOptions = {}): string {
  const root = options.root ?? REPO_ROOT;
  return join(options.outDir ?? join(root, 'dist'), entry.dir, entry.name);
}

/**
 * Builds an entry unless its output is fresh; resolves to the executable.
 *
 * @example
 * const { path, built } = await ensureBundled(BUNDLE_ENTRIES[0]);
 */
export function ensureBundled(entry: BundleEntry, options: BundleOptions = {}): Promise<Bundled> {
  const out = bundlePath(entry, options);
  const running = inFlight.get(out);
  if (running) return running;
  const p = ensureOne(entry, out, options).finally(() => inFlight.delete(out));
  inFlight.set(out, p);
  return p;
}

/**
 * Every entry of entries.ts, fresh (what `npm test` runs before vitest).
 *
 * @example
 * for (const b of await ensureAllBundled()) console.log(b.path, b.built ? 'built' : 'fresh');
 */
export async function ensureAllBundled(options: BundleOptions = {}): Promise<readonly Bundled[]> {
  const out: Bundled[] = [];
  for (const entry of BUNDLE_ENTRIES) out.push(await ensureBundled(entry, options));
  return out;
}

/**
 * The CNI plugin executable (dist/cni/kovn), rebuilt when a source is newer.
 *
 * @example
 * const plugin = await ensurePluginBuilt(); // spawn it with CNI_COMMAND etc., or name its folder in CNI_PATH
 */
export async function ensurePluginBuilt(): Promise<string> {
  const entry = BUNDLE_ENTRIES.find((e) => e.source === 'node/cni/main.ts');
  if (!entry) throw new BundleError('node/bundle/entries.ts lists no entry for node/cni/main.ts');
  return (await ensureBundled(entry)).path;
}

async function ensureOne(entry: BundleEntry, out: string, options: BundleOptions): Promise<Bundled> {
  const root = options.root ?? REPO_ROOT;
  const node = options.node ?? process.execPath;
  const stampPath = `${out}.stamp.json`;
  const fresh = await isFresh(root, out, stampPath, { source: entry.source, node });
  if (!fresh) await build(entry, root, out, node);
  await linkAliases(entry, out);
  return { entry, path: out, built: !fresh };
}

async function isFresh(
  root: string,
  out: string,
  stampPath: string,
  want: { source: string; node: string },
): Promise<boolean> {
  let stamp: Stamp;
  try {
    await stat(out);
    stamp = JSON.parse(await readFile(stampPath, 'utf8')) as Stamp;
  } catch {
    return false;
  }
  if (stamp.source !== want.source || stamp.recipe !== JSON.stringify(recipe(want.node))) return false;
  const { version } = await import('esbuild');
  if (stamp.esbuild !== version) return false;
  for (const [rel, was] of Object.entries(stamp.inputs)) {
    const now = await stat(join(root, rel)).catch(() => undefined);
    if (!now || now.mtimeMs !== was.mtimeMs || now.size !== was.size) return false;
  }
  return true;
}

/**
 * How an output is made, apart from its inputs: recorded in the stamp, so a
 * change here (or of the interpreter) rebuilds every output.
 */
function recipe(node: string) {
  return {
    bundle: true,
    platform: 'node',
    // CommonJS: the node entry loader is the fastest to start, and needs no "type" for an extensionless file.
    format: 'cjs',
    target: 'node20',
    // The body runs inside a function given `require`, so that a copy of the file under a package.json
    // saying "type": "module" (where node loads it as ES module code, without `require`) still runs.
    banner: { js: `#!${node}\nfunction kovnEntry(require) {` },
    footer: { js: BOTH_MODULE_SYSTEMS },
  } as const;
}

async function build(entry: BundleEntry, root: string, out: string, node: string): Promise<void> {
  const esbuild = await import('esbuild');
  let result: Awaited<ReturnType<typeof esbuild.build>>;
  try {
    result = await esbuild.build({
      ...recipe(node),
      entryPoints: [join(root, entry.source)],
      absWorkingDir: root,
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
  } catch (e) {
    throw new BundleError(`bundling ${entry.source} failed: ${(e as Error).message}`, { cause: e });
  }
  const code = result.outputFiles?.[0]?.text;
  if (code === undefined) throw new BundleError(`bundling ${entry.source} produced no output`);
  try {
    const tools = { esbuild: esbuild.version, recipe: JSON.stringify(recipe(node)) };
    await writeOutputs(entry, root, out, code, result.metafile?.inputs ?? {}, tools);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new BundleError(`writing ${out} (from ${entry.source}) failed: ${why}`, { cause: e });
  }
}

async function writeOutputs(
  entry: BundleEntry,
  root: string,
  out: string,
  code: string,
  metaInputs: Readonly<Record<string, unknown>>,
  tools: { esbuild: string; recipe: string },
): Promise<void> {
  const dir = join(out, '..');
  await mkdir(dir, { recursive: true });
  // Outside the repository's "type": "module" a .cjs-less file is CommonJS anyway; inside, this says so.
  await replaceFile(join(dir, 'package.json'), '{"type":"commonjs"}\n', 0o644);
  await replaceFile(out, code, 0o755);
  const inputs: Record<string, { mtimeMs: number; size: number }> = {};
  for (const rel of Object.keys(metaInputs)) {
    const s = await stat(join(root, rel));
    inputs[rel] = { mtimeMs: s.mtimeMs, size: s.size };
  }
  const stamp: Stamp = { ...tools, source: entry.source, inputs };
  await replaceFile(`${out}.stamp.json`, `${JSON.stringify(stamp, null, 1)}\n`, 0o644);
}

async function replaceFile(path: string, text: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode });
  await chmod(tmp, mode);
  await rename(tmp, path);
}

async function linkAliases(entry: BundleEntry, out: string): Promise<void> {
  for (const alias of entry.aliases ?? []) {
    const at = join(out, '..', alias);
    if ((await readlink(at).catch(() => undefined)) === entry.name) continue;
    const tmp = `${at}.${process.pid}.tmp`;
    await symlink(entry.name, tmp);
    await rename(tmp, at);
  }
}
