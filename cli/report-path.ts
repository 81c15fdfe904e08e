/**
 * Where `--report` may write: checked before the run, so a run of minutes
 * never ends in "cannot write", and never over an input (a scenario file
 * or a manifest inside an input folder).
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { listManifestFiles } from '../scenarios/read-files.ts';

export class ReportPathError extends Error {
  override readonly name = 'ReportPathError';
  constructor(
    readonly code: 'is-input' | 'is-directory' | 'not-writable',
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

/** Every file the inputs stand for, as the loader lists them (a folder: its manifests). */
function inputFiles(paths: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const p of paths) {
    try {
      for (const f of listManifestFiles([p])) out.add(real(f));
    } catch {
      // An input that cannot be read (or an empty folder) is the loader's error to report.
    }
  }
  return out;
}

/**
 * @example checkReportPath('out.html', ['scenarios/quickstart.yaml']) // ok, or throws ReportPathError
 */
export function checkReportPath(report: string, inputs: readonly string[]): void {
  const target = real(report);
  if (inputFiles(inputs).has(target))
    throw new ReportPathError('is-input', report, `--report ${report}: that is an input of this run; not overwritten`);
  let exists = false;
  try {
    const st = statSync(report);
    exists = true;
    if (st.isDirectory()) throw new ReportPathError('is-directory', report, `--report ${report}: is a directory`);
  } catch (e) {
    if (e instanceof ReportPathError) throw e;
  }
  try {
    accessSync(exists ? report : dirname(resolve(report)), constants.W_OK);
  } catch (e) {
    throw new ReportPathError(
      'not-writable',
      report,
      `--report ${report}: cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
}
