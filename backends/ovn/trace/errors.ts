/**
 * Errors of the ovn-trace wrapper. A trace we cannot read exactly is an
 * error naming the line, never a guessed verdict.
 */

export type TraceParseErrorCode =
  | 'not-a-trace' // the text does not start with `# <flow>` (ovn-trace answered with an error)
  | 'bad-flow-line' // the `# <flow>` line has a field we do not know
  | 'unsupported-format' // --summary/--minimal/--all output: only --detailed is read
  | 'bad-indent' // a line's indentation fits no place in ovn-trace's tree layout
  | 'unknown-title' // a pipeline/transformation title we do not know
  | 'unknown-action' // an action line we cannot interpret
  | 'unknown-comment' // a `/* ... */` or `*** ...` line we do not know
  | 'unknown-value' // a packet field loaded from a register whose value the text does not show
  | 'lb-backend-unknown'; // ct_lb chose among several backends at random (no --lb-dst matched)

export interface TraceLineRef {
  /** 1-based line number in the ovn-trace text. */
  readonly line: number;
  readonly text: string;
}

/**
 * @example
 * try { parseTrace(text) } catch (e) { if (e instanceof TraceParseError) console.log(e.code, e.line) }
 */
export class TraceParseError extends Error {
  override readonly name = 'TraceParseError';
  readonly line: number;
  readonly text: string;
  constructor(
    readonly code: TraceParseErrorCode,
    message: string,
    at: TraceLineRef,
    options?: { cause?: unknown },
  ) {
    super(`${message} (line ${at.line}: ${JSON.stringify(at.text.trim())})`, options);
    this.line = at.line;
    this.text = at.text;
  }
}

export type OvnTracerErrorCode =
  | 'ovn-trace-aborted' // ovn-trace crashed on this packet (23.03: nd_na_router asserts)
  | 'lb-dst-diverged' // the --lb-dst trace took other flows before the LB than the exact one
  | 'ct-budget' // the --ct=... daemon ran out of ct states twice for one trace
  | 'forwarding-loop' // more datapath pipelines than OVS translates (rule ovs-translation-limit)
  | 'trace-failed'; // ovn-trace rejected the query

/** A trace the tracer could not answer exactly; `code` says why. */
export class OvnTracerError extends Error {
  override readonly name = 'OvnTracerError';
  constructor(
    readonly code: OvnTracerErrorCode,
    message: string,
    options?: { cause?: unknown; raw?: string },
  ) {
    super(message, options);
    if (options?.raw !== undefined) this.raw = options.raw;
  }

  /** ovn-trace's text, where it has one worth reading (forwarding-loop: its first pipelines only). */
  readonly raw?: string;
}
