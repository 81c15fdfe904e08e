/**
 * The node/ entry points that run as compiled JavaScript: each is started
 * often and must start fast (a runtime runs the CNI plugin for every pod), so
 * it is bundled once into dist/ instead of going through the TypeScript loader
 * at every start. Add an entry here for another such program.
 */

export interface BundleEntry {
  /** The executable's file name under `dist/<dir>/`. */
  readonly name: string;
  readonly dir: string;
  /** Repository-relative path of the entry source. */
  readonly source: string;
  /** Other names for the same executable in the same folder (symbolic links). */
  readonly aliases?: readonly string[];
}

/**
 * Every bundled entry point.
 *
 * @example
 * BUNDLE_ENTRIES.find((e) => e.name === 'kovn') // the CNI plugin, dist/cni/kovn (also dist/cni/kovn-cni)
 */
export const BUNDLE_ENTRIES: readonly BundleEntry[] = [
  // The CNI plugin: a conflist's `type` names it (`kovn`, or `kovn-cni`).
  { name: 'kovn', dir: 'cni', source: 'node/cni/main.ts', aliases: ['kovn-cni'] },
];
