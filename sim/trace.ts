/**
 * The trace record of a simulation: one entry per pipeline stage a packet
 * passed where something happened (ovn-trace also leaves out stages whose
 * only flow is "1 → next"), keyed by OVN's stage names. Each entry names the
 * datapath, the rule that matched (an ACL, route, policy, NAT rule, load
 * balancer VIP, or a built-in flow), the action, and the fields it changed.
 *
 * `formatTrace` prints it in ovn-trace's spirit (a header per datapath
 * pipeline, one line per stage); `traceToJSON` gives the JSON form.
 */
import { formatField } from '../model/packet/format.ts';
import type { FieldName } from '../model/packet/fields.ts';

export type PipelineName = 'ingress' | 'egress';

export type RuleKind = 'acl' | 'lb' | 'route' | 'policy' | 'nat' | 'port-security' | 'qos' | 'builtin';

/** The NB row (or northd's own flow) a stage matched. */
export interface TraceRule {
  readonly kind: RuleKind;
  /** The logical flow priority, as northd computes it (and ovn-trace prints it). */
  readonly priority: number;
  /** The NB row's own priority where the flow's is not it: an ACL's (northd adds 1000). */
  readonly rowPriority?: number;
  /** Row key (model/topology keyOf) for NB rows. */
  readonly key?: string;
  /** NB `name` where the row has one (ACLs), or the LB name. */
  readonly name?: string;
  /** Short text of what matched, for humans (e.g. `ct.est && ct.rpl`, `ip4.dst == 10.0.0.0/24`). */
  readonly match?: string;
}

export interface FieldChange {
  readonly field: FieldName;
  readonly from: string;
  readonly to: string;
}

export interface TraceStage {
  readonly datapath: string;
  readonly pipeline: PipelineName;
  /** OVN stage name, e.g. `ls_in_acl`, `lr_in_ip_routing`. */
  readonly stage: string;
  readonly inport: string;
  readonly outport?: string;
  readonly rule?: TraceRule;
  /** e.g. `next`, `drop`, `ct_lb_mark`, `output`, `allow-related (commit)`. */
  readonly action: string;
  readonly changes?: readonly FieldChange[];
  /** A conntrack lookup or commit this stage did: zone and resulting state. */
  readonly ct?: { readonly zone: string; readonly state: string; readonly op: string };
  /** Extra explanation (why dropped, which backend, ambiguity). */
  readonly note?: string;
  /** Nesting: 0 for the first pass, +1 per datapath hop or fork. */
  readonly depth: number;
}

export function fieldChange(
  field: FieldName,
  from: number | bigint | undefined,
  to: number | bigint | undefined,
): FieldChange {
  return {
    field,
    from: from === undefined ? '-' : formatField(field, from),
    to: to === undefined ? '-' : formatField(field, to),
  };
}

/**
 * A rule's priority as its owner wrote it; where northd's logical flow has
 * another (ACLs), that one too, named: `priority 2000, flow priority 3000`.
 * explain.ts words an ACL's drop the same way.
 */
export function describePriority(r: Pick<TraceRule, 'priority' | 'rowPriority'>): string {
  if (r.rowPriority === undefined || r.rowPriority === r.priority) return `priority ${r.priority}`;
  return `priority ${r.rowPriority}, flow priority ${r.priority}`;
}

function describeRule(r: TraceRule): string {
  const who = r.name ? `${r.kind} "${r.name}"` : r.kind;
  // The key of a route or NAT rule says more than its match; ACLs and policies show their match.
  const what = r.match ? ` (${r.match})` : r.key ? ` ${r.key}` : '';
  return `${who}${what}, ${describePriority(r)}`;
}

function stageLine(s: TraceStage): string {
  const parts = [s.stage.padEnd(22)];
  if (s.rule) parts.push(`${describeRule(s.rule)}:`);
  parts.push(s.action);
  if (s.ct) parts.push(`[${s.ct.op} zone ${s.ct.zone}: ${s.ct.state}]`);
  if (s.changes?.length) parts.push(s.changes.map((c) => `${c.field}=${c.to}`).join(', '));
  if (s.note) parts.push(`-- ${s.note}`);
  return parts.join(' ');
}

/**
 * ovn-trace-like text: a header line whenever the datapath, pipeline or
 * ports change, then one indented line per stage.
 *
 * @example
 * formatTrace(result.stages)
 * // ingress(dp="sw1", inport="p1")
 * //   ls_in_acl              acl "allow-web" (...), priority 2001, flow priority 3001: allow-related [lookup zone lsp:p1: new|trk]
 */
export function formatTrace(stages: readonly TraceStage[]): string {
  const lines: string[] = [];
  let header = '';
  for (const s of stages) {
    const pad = '  '.repeat(s.depth);
    const ports =
      s.pipeline === 'egress' ? `inport="${s.inport}", outport="${s.outport ?? ''}"` : `inport="${s.inport}"`;
    const h = `${pad}${s.pipeline}(dp="${s.datapath}", ${ports})`;
    if (h !== header) {
      lines.push(h);
      header = h;
    }
    lines.push(`${pad}  ${stageLine(s)}`);
  }
  return lines.join('\n');
}

/** The JSON form: stages as plain objects (already JSON-safe). */
export function traceToJSON(stages: readonly TraceStage[]): object[] {
  return stages.map((s) => ({ ...s }));
}
