/**
 * ovn-trace's default (--detailed) output as a tree, read the way
 * utilities/ovn-trace.c (OVN 23.03) prints it.
 *
 * ovn-trace builds a tree of nodes and prints it with
 * ovntrace_node_print_details(): a node's line is indented (level + more)*4
 * where `more` is 1 unless it is the last of its siblings and a container
 * (leaves, and the egress members of a multicast group, always get 1), and
 * its children are printed at level + 2*more. Containers are:
 * - pipelines: `ingress(dp="..", inport="..")`, `egress(dp="..", inport="..",
 *   outport="..")`, `egress(dp="..", outport="..")` (next(pipeline=egress)),
 *   `multicast(dp="..", mcgroup="..")`, printed as a title with a dashes
 *   underline after a blank line;
 * - transformations (same title form): ct_next(ct_state=..), ct_lb,
 *   ct_lb_mark, ct_dnat.., ct_snat.., ct_commit_nat, clone, arp, nd_na,
 *   nd_ns, icmp4, icmp6, tcp_reset, sctp_abort, `select: ..`, `LOG: ..`;
 * - tables: ` N. stage (source): match, priority P, uuid U` or
 *   ` N. stage: no match (implicit drop)`. Each `next;` nests the next
 *   table inside the current one, so a pipeline is a chain of tables.
 * Leaves are the action lines (`outport = "p2";`, `output;`, `drop;`) and
 * comments (`/* output to "p2", type "" *\/`, `*** TTL underflow`).
 * MODIFY nodes (field changes with their values) are not printed in the
 * detailed format; verdict.ts recomputes them from the action lines.
 *
 * Reading the indentation back: a list at level L holds lines indented L*4
 * (the last container; its children are again at level L) or (L+1)*4
 * (a leaf, or a container whose children are at level L+2). Anything else
 * is a TraceParseError naming the line.
 */
import { TraceParseError } from './errors.ts';

interface NodeBase {
  /** 1-based line in the ovn-trace text. */
  readonly line: number;
  /** The line, trimmed (for tables: without the table number). */
  readonly text: string;
}

export interface PipelineNode extends NodeBase {
  readonly kind: 'pipeline';
  readonly pipeline: 'ingress' | 'egress' | 'multicast';
  readonly datapath: string;
  readonly inport?: string;
  readonly outport?: string;
  readonly mcgroup?: string;
  readonly children: readonly TraceNode[];
}

export interface TransformNode extends NodeBase {
  readonly kind: 'transform';
  readonly children: readonly TraceNode[];
}

export interface TableNode extends NodeBase {
  readonly kind: 'table';
  readonly table: number;
  readonly stage?: string;
  /** Where northd built the flow, e.g. `northd.c:9122`. */
  readonly source?: string;
  /** Absent for `no match (implicit drop)`. */
  readonly match?: string;
  readonly priority?: number;
  /** First 8 hex digits of the Logical_Flow uuid. */
  readonly uuid?: string;
  readonly children: readonly TraceNode[];
}

export interface LeafNode extends NodeBase {
  readonly kind: 'leaf';
}

export type TraceNode = PipelineNode | TransformNode | TableNode | LeafNode;

/** One stage the packet went through, in execution order. */
export interface OvnTraceStage {
  readonly datapath: string;
  readonly pipeline: 'ingress' | 'egress';
  readonly table: number;
  readonly stage?: string;
  readonly source?: string;
  readonly match?: string;
  readonly priority?: number;
  readonly uuid?: string;
  /** The flow's action lines (and comments) as printed. */
  readonly actions: readonly string[];
  /** How many pipelines/transformations enclose it (0: the first pipeline). */
  readonly depth: number;
  readonly line: number;
}

export interface OvnTrace {
  /** The `# <flow>` line, without `# `. */
  readonly flow: string;
  readonly root: readonly TraceNode[];
  readonly stages: readonly OvnTraceStage[];
}

interface Line {
  readonly no: number;
  readonly indent: number;
  readonly text: string;
  readonly raw: string;
  readonly title: boolean;
}

const TABLE_RE = /^(\d+)\. (.*)$/;

/** Lines with their indentation, titles marked (a title's next line is its dashes underline). */
function scan(raw: readonly string[]): Line[] {
  const out: Line[] = [];
  for (let i = 1; i < raw.length; i++) {
    const s = raw[i] ?? '';
    if (s.trim() === '' || s === '# Detailed trace.') continue;
    const lead = s.length - s.trimStart().length;
    const text = s.trim();
    const next = raw[i + 1] ?? '';
    const title = /^-+$/.test(next.trim()) && next.trim().length === text.length && next.indexOf('-') === lead;
    // `%2d. `: one-digit table numbers get a pad space that is not indentation.
    const table = TABLE_RE.exec(text);
    const pad = table && !title ? Math.max(0, 2 - (table[1] ?? '').length) : 0;
    out.push({ no: i + 1, indent: lead - pad, text, raw: s, title });
    if (title) i++;
  }
  return out;
}

function quoted(args: string, key: string): string | undefined {
  const m = new RegExp(`${key}="((?:[^"\\\\]|\\\\.)*)"`).exec(args);
  return m?.[1];
}

function pipelineOf(l: Line, children: TraceNode[]): TraceNode {
  const m = /^(ingress|egress|multicast)\((.*)\)$/.exec(l.text);
  const dp = m ? quoted(m[2] ?? '', 'dp') : undefined;
  if (!m || dp === undefined) return { kind: 'transform', line: l.no, text: l.text, children };
  const args = m[2] ?? '';
  const inport = quoted(args, 'inport');
  const outport = quoted(args, 'outport');
  const mcgroup = quoted(args, 'mcgroup');
  return {
    kind: 'pipeline',
    pipeline: m[1] as PipelineNode['pipeline'],
    datapath: dp,
    line: l.no,
    text: l.text,
    children,
    ...(inport === undefined ? {} : { inport }),
    ...(outport === undefined ? {} : { outport }),
    ...(mcgroup === undefined ? {} : { mcgroup }),
  };
}

const TRANSFORM_RE =
  /^(ct_next\(|ct_lb_mark\b|ct_lb\b|ct_dnat|ct_snat|ct_commit_nat\b|clone$|arp$|nd_na$|nd_ns$|icmp4$|icmp6$|tcp_reset$|sctp_abort$|select: |LOG: )/;

function tableOf(l: Line, children: TraceNode[]): TableNode {
  const t = TABLE_RE.exec(l.text);
  const at = { line: l.no, text: l.raw };
  if (!t) throw new TraceParseError('bad-indent', 'not a table line', at);
  const table = Number(t[1]);
  let rest = t[2] ?? '';
  const base = { kind: 'table' as const, table, line: l.no, text: rest, children };
  const noMatch = /^(?:([a-z][a-z0-9_]*): )?no match \(implicit drop\)$/.exec(rest);
  if (noMatch) return noMatch[1] === undefined ? base : { ...base, stage: noMatch[1] };
  const tail = /, priority (-?\d+), uuid ([0-9a-f]{8})$/.exec(rest);
  if (!tail) throw new TraceParseError('unknown-title', 'table line without priority and uuid', at);
  rest = rest.slice(0, tail.index);
  const head =
    /^([a-z][a-z0-9_]*) \(([^()]*)\): ([\s\S]*)$/.exec(rest) ?? /^([a-z][a-z0-9_]*)(): ([\s\S]*)$/.exec(rest);
  const src = head ? undefined : /^\(([^()]*)\): ([\s\S]*)$/.exec(rest);
  const stage = head?.[1];
  const source = head ? head[2] || undefined : src?.[1];
  const match = head ? head[3] : src ? src[2] : rest;
  return {
    ...base,
    ...(stage === undefined ? {} : { stage }),
    ...(source === undefined ? {} : { source }),
    match: match ?? '',
    priority: Number(tail[1]),
    uuid: tail[2] ?? '',
  };
}

class TreeReader {
  i = 0;
  constructor(readonly lines: readonly Line[]) {}

  /** The nodes of a list printed at `level` (see the file header). */
  list(level: number): TraceNode[] {
    const nodes: TraceNode[] = [];
    for (;;) {
      const l = this.lines[this.i];
      if (l === undefined || l.indent < level * 4) return nodes;
      if (l.indent !== level * 4 && l.indent !== (level + 1) * 4) {
        throw new TraceParseError('bad-indent', `indentation ${l.indent} fits no node at level ${level}`, {
          line: l.no,
          text: l.raw,
        });
      }
      const last = l.indent === level * 4;
      this.i++;
      const container = l.title || TABLE_RE.test(l.text);
      if (!container) {
        if (last)
          throw new TraceParseError('bad-indent', 'a leaf printed as a last container', { line: l.no, text: l.raw });
        nodes.push({ kind: 'leaf', line: l.no, text: l.text });
        continue;
      }
      const children = this.list(last ? level : level + 2);
      nodes.push(this.container(l, children));
      if (last) return nodes;
    }
  }

  container(l: Line, children: TraceNode[]): TraceNode {
    if (!l.title) return tableOf(l, children);
    const node = pipelineOf(l, children);
    if (node.kind === 'transform' && !TRANSFORM_RE.test(l.text)) {
      throw new TraceParseError('unknown-title', 'unknown pipeline or transformation title', {
        line: l.no,
        text: l.raw,
      });
    }
    return node;
  }
}

function collectStages(
  nodes: readonly TraceNode[],
  ctx: { dp: string; pipe: 'ingress' | 'egress'; depth: number },
  out: OvnTraceStage[],
): void {
  for (const n of nodes) {
    if (n.kind === 'leaf') continue;
    if (n.kind === 'table') {
      const { children, kind: _k, text: _t, ...rest } = n;
      const actions = children.flatMap((c) => (c.kind === 'leaf' ? [c.text] : []));
      out.push({ ...rest, datapath: ctx.dp, pipeline: ctx.pipe, actions, depth: ctx.depth });
      collectStages(children, ctx, out);
    } else if (n.kind === 'pipeline') {
      const pipe = n.pipeline === 'ingress' ? 'ingress' : 'egress';
      collectStages(n.children, { dp: n.datapath, pipe, depth: ctx.depth + 1 }, out);
    } else {
      collectStages(n.children, { ...ctx, depth: ctx.depth + 1 }, out);
    }
  }
}

/**
 * Parses ovn-trace's detailed output.
 *
 * @example
 * const t = parseTrace(await daemon.trace({ datapath: 'sw0', microflow }));
 * t.stages.map((s) => s.stage) // ['ls_in_check_port_sec', 'ls_in_l2_lkup', 'ls_out_check_port_sec',
 * 'ls_out_apply_port_sec']
 */
export function parseTrace(text: string): OvnTrace {
  const raw = text.replace(/\r\n/g, '\n').split('\n');
  const first = raw[0] ?? '';
  if (!first.startsWith('# '))
    throw new TraceParseError('not-a-trace', 'ovn-trace output must start with "# <flow>"', { line: 1, text: first });
  const other = raw.findIndex((l) => /^# (Summary|Minimal) trace\.$/.test(l));
  if (other >= 0) {
    throw new TraceParseError('unsupported-format', 'only --detailed output is read', {
      line: other + 1,
      text: raw[other] ?? '',
    });
  }
  const lines = scan(raw);
  const reader = new TreeReader(lines);
  const root = reader.list(0);
  const rest = lines[reader.i];
  if (rest !== undefined)
    throw new TraceParseError('bad-indent', 'line outside the trace tree', { line: rest.no, text: rest.raw });
  const first0 = root[0];
  if (root.length !== 1 || first0?.kind !== 'pipeline' || first0.pipeline !== 'ingress') {
    throw new TraceParseError('not-a-trace', 'a trace has exactly one top-level ingress pipeline', {
      line: first0?.line ?? 2,
      text: first0?.text ?? '',
    });
  }
  const stages: OvnTraceStage[] = [];
  collectStages(root, { dp: first0.datapath, pipe: 'ingress', depth: -1 }, stages);
  return { flow: first.slice(2), root, stages };
}
