/**
 * Manifest files from the paths a user gives: folders listed (`.yaml`, `.yml`
 * and `.json` in any case, sorted by name), files read with a size limit that
 * is checked before the file is read whole.
 *
 * The limits are about memory (figures measured on `kubectl get pods -A -o
 * yaml`-style dumps of about 3.7 KB a pod, 7.9 KB as indented JSON):
 * - YAML, 16 MiB a file (about 4,500 pods). The `yaml` package holds about 55
 *   bytes per byte of YAML while it parses one document: a 60 MiB dump peaked
 *   at 3.3 GB RSS, near V8's default heap limit (4 GB at most, less on small
 *   machines), a 16 MiB one at 0.97 GB.
 * - JSON, 128 MiB a file (about 16,000 pods): JSON.parse needs a few bytes per
 *   byte; a 128 MiB dump peaked at 0.47 GB RSS.
 * - 128 MiB for all files of one input together: the objects stay in memory
 *   for the whole run (after parsing, about 5 bytes per byte of YAML, 0.6 per
 *   byte of indented JSON).
 * A larger cluster is read as JSON; the error for a large YAML file says so.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ScenarioLoadError } from './load-error.ts';

export interface ReadLimits {
  /** Bytes of one YAML file (any name but `.json`). */
  readonly yamlFileBytes: number;
  /** Bytes of one `.json` file. */
  readonly jsonFileBytes: number;
  /** Bytes of all files of one input together. */
  readonly totalBytes: number;
}

const MiB = 1024 * 1024;

/** The limits of every input (see above for why these). */
export const READ_LIMITS: ReadLimits = { yamlFileBytes: 16 * MiB, jsonFileBytes: 128 * MiB, totalBytes: 128 * MiB };

/** The names a folder's manifest files have; what the scenario's name drops from its file's. */
export const MANIFEST = /\.(ya?ml|json)$/i;

/**
 * Whether a file is read as JSON (by its name) rather than YAML.
 *
 * @example isJsonFile('pods.JSON') // true
 */
export const isJsonFile = (file: string): boolean => /\.json$/i.test(file);

const readError = (file: string, detail: string) =>
  new ScenarioLoadError('read', { file, doc: 0, line: 0 }, '', detail);

const size = (bytes: number) => {
  const [unit, name] = bytes >= 1024 * MiB ? [1024 * MiB, 'GiB'] : bytes >= MiB ? [MiB, 'MiB'] : [1, 'bytes'];
  return `${(bytes / unit).toFixed(bytes % unit === 0 ? 0 : 1)} ${name}`;
};

/**
 * The files of the given paths, in order: a file as itself, a folder as its
 * manifest files sorted by name (sub-folders are not entered).
 *
 * @example listManifestFiles(['cluster/', 'extra.yaml']) // ['cluster/a.yaml', 'cluster/b.JSON', 'extra.yaml']
 * @throws ScenarioLoadError 'read' for a path that cannot be read, 'empty' for a folder without manifest files.
 */
export function listManifestFiles(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const path of paths) {
    let names: string[] | undefined;
    try {
      if (statSync(path).isDirectory()) names = readdirSync(path);
    } catch (e) {
      throw readError(path, (e as Error).message);
    }
    if (names === undefined) {
      files.push(path);
      continue;
    }
    const manifests = names.filter((f) => MANIFEST.test(f)).sort();
    if (manifests.length === 0)
      throw new ScenarioLoadError(
        'empty',
        { file: path, doc: 0, line: 0 },
        '',
        'a folder without .yaml, .yml or .json files',
      );
    for (const f of manifests) files.push(join(path, f));
  }
  return files;
}

/**
 * Reads the files of one input, counting their bytes against its total limit.
 *
 * @example
 * const budget = new ReadBudget();
 * for (const f of listManifestFiles(paths)) readScenarioText(f, budget.readText(f), acc);
 */
export class ReadBudget {
  private used = 0;
  constructor(readonly limits: ReadLimits = READ_LIMITS) {}

  /**
   * A file's text, read after checking its size (when the file system knows
   * it) and never more than the limit plus one byte (a device, a pipe or a
   * link to /dev/zero has no size to check first).
   *
   * @throws ScenarioLoadError 'read', or 'too-large' naming the file and the limit.
   */
  readText(file: string): string {
    const json = isJsonFile(file);
    const fileLimit = json ? this.limits.jsonFileBytes : this.limits.yamlFileBytes;
    const left = this.limits.totalBytes - this.used;
    const limit = Math.min(fileLimit, left);
    const tooLarge = (what: string) => {
      const which =
        limit === fileLimit
          ? `kovn's limit of ${size(fileLimit)} for one ${json ? 'JSON' : 'YAML'} file`
          : `kovn's limit of ${size(this.limits.totalBytes)} for all files of one input together (${size(this.used)} read before this one)`;
      const hint =
        json || limit !== fileLimit
          ? ''
          : `; a larger cluster can be read as JSON (kubectl get -o json), up to ${size(this.limits.jsonFileBytes)}`;
      return new ScenarioLoadError('too-large', { file, doc: 0, line: 0 }, '', `larger than ${which} (${what})${hint}`);
    };
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch (e) {
      throw readError(file, (e as Error).message);
    }
    try {
      const st = fstatSync(fd);
      if (st.isDirectory()) throw readError(file, 'a folder where a file was expected');
      if (st.isFile() && st.size > limit) throw tooLarge(`it has ${size(st.size)}`);
      const bytes = readAtMost(fd, limit + 1, st.isFile() ? st.size + 1 : 64 * 1024);
      if (bytes.length > limit) throw tooLarge('it is not a regular file and gave more bytes than that');
      this.used += bytes.length;
      return bytes.toString('utf8');
    } catch (e) {
      if (e instanceof ScenarioLoadError) throw e;
      throw readError(file, (e as Error).message);
    } finally {
      closeSync(fd);
    }
  }
}

/** Up to `max` bytes from `fd`, in chunks starting at `first` bytes and doubling. */
function readAtMost(fd: number, max: number, first: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  let chunk = Math.min(Math.max(first, 1), max);
  while (total < max) {
    const buf = Buffer.allocUnsafe(Math.min(chunk, max - total));
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    chunks.push(n === buf.length ? buf : buf.subarray(0, n));
    total += n;
    chunk = Math.min(chunk * 2, 16 * 1024 * 1024);
  }
  return Buffer.concat(chunks, total);
}
