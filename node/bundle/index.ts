/**
 * node/bundle: the node/ programs that run as compiled JavaScript because they
 * start often and must start fast (the CNI plugin), their list (entries.ts)
 * and the build that keeps dist/ fresh (build.ts).
 */
export { BUNDLE_ENTRIES, type BundleEntry } from './entries.ts';
export {
  BundleError,
  REPO_ROOT,
  bundlePath,
  ensureAllBundled,
  ensureBundled,
  ensurePluginBuilt,
  type BundleOptions,
  type Bundled,
} from './build.ts';
