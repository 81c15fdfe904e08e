/**
 * The one error of reading scenario files and manifests: where (file,
 * document, line, field) and what (a code). Shared by the file reader
 * (read-files.ts), the YAML and JSON readers and the scenario loader (load.ts),
 * which re-exports it.
 */

/** Where a document came from. */
export interface Source {
  readonly file: string;
  /** 0-based index of the document in its file. */
  readonly doc: number;
  /** 1-based; 0 when the problem is the file (or the input) as a whole. */
  readonly line: number;
}

export type ScenarioLoadErrorCode =
  /** The file or folder cannot be read. */
  | 'read'
  /** The input holds no Kubernetes object and no Scenario, or a folder holds no manifest file. */
  | 'empty'
  /** A file, or all files together, larger than the limits of read-files.ts. */
  | 'too-large'
  /** Not valid YAML, or YAML that does not convert to JSON as kubectl converts it (keys, aliases, merges). */
  | 'yaml'
  /** Not valid JSON (a `.json` file), or a duplicate key in it. */
  | 'json'
  /** Collections nested deeper than kovn reads (kube-yaml.ts, MAX_NESTING). */
  | 'too-deep'
  /** A YAML tag that does not produce a JSON value (`!!binary`, `!!set`, `!!timestamp`, `!custom`...). */
  | 'tag'
  /** A number JSON or JavaScript cannot carry as written (`.inf`, `.nan`, an integer beyond 2^53). */
  | 'value'
  | 'shape'
  | 'two-scenarios'
  /** `sim run` of a scenario that has no probe to check (see requireProbes). */
  | 'no-probes';

/**
 * @example
 * new ScenarioLoadError('tag', { file: 'a.yaml', doc: 0, line: 3 }, '', '!!binary is not accepted').message
 * // 'a.yaml: document 0, line 3: !!binary is not accepted'
 */
export class ScenarioLoadError extends Error {
  override readonly name = 'ScenarioLoadError';
  constructor(
    readonly code: ScenarioLoadErrorCode,
    readonly source: Source,
    /** The field, as a path (`spec.expect[3].port`); empty for the document itself. */
    readonly field: string,
    detail: string,
  ) {
    super(
      source.line === 0 && field === ''
        ? `${source.file}: ${detail}`
        : `${source.file}: document ${source.doc}, line ${source.line}${field ? `, ${field}` : ''}: ${detail}`,
    );
  }
}
