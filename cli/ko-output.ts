/**
 * What `kovn ko status`, `diagnose` and `trace` print: tables on a
 * terminal, the same values as JSON with `--json`. Text from the cluster or
 * the databases (names, addresses, ovn-trace's lines) is shown escaped.
 */
import type { MemberView, RaftProblem } from '../backends/ovn/control-plane/index.ts';
import type { Diagnosis } from '../scenarios/ko/diagnose.ts';
import type { KoTrace } from '../scenarios/ko/trace.ts';
import { shown, shownLines } from './sim-output.ts';

/** One database's cluster as `kovn ko status` reports it. */
export interface DbStatus {
  readonly db: string;
  readonly members: readonly MemberView[];
  readonly problems: readonly RaftProblem[];
}

/**
 * Columns padded to their widest cell.
 *
 * @example table([['A', 'BB'], ['ccc', 'd']]) // ['A    BB', 'ccc  d']
 */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

function memberRow(v: MemberView): string[] {
  if (v.kind === 'standalone') return [shown(v.ctl), '-', '-', 'standalone', '-', '-', '-', '-', '-'];
  if (v.kind === 'unreachable') return [shown(v.ctl), '-', '-', 'unreachable', '-', '-', '-', '-', '-'];
  const s = v.status;
  return [
    shown(v.ctl),
    s.serverId,
    shown(s.address),
    s.role,
    String(s.term),
    s.leader,
    `[${s.log.first}, ${s.log.last}]`,
    `${s.notCommitted}/${s.notApplied}`,
    String(s.servers.length),
  ];
}

const problemLine = (p: RaftProblem) => `  ${p.code}: ${shown(p.path)}: ${shown(p.message)}`;

/**
 * @example statusLines([{ db: 'OVN_Northbound', members, problems: [] }]) // a table per database, then "healthy"
 */
export function statusLines(dbs: readonly DbStatus[]): string[] {
  const out: string[] = [];
  for (const d of dbs) {
    if (out.length > 0) out.push('');
    out.push(`${d.db}:`);
    const head = ['MEMBER', 'SID', 'ADDRESS', 'ROLE', 'TERM', 'LEADER', 'LOG', 'UNCOMMITTED/UNAPPLIED', 'SERVERS'];
    out.push(...table([head, ...d.members.map(memberRow)]).map((l) => `  ${l}`));
    out.push(d.problems.length === 0 ? '  healthy' : `  ${d.problems.length} problem(s):`);
    out.push(...d.problems.map(problemLine));
  }
  return out;
}

const ref = (o: { kind: string; namespace?: string; name: string } | undefined) =>
  o === undefined ? '-' : shown(`${o.kind}/${o.namespace ? `${o.namespace}/` : ''}${o.name}`);

/**
 * Findings as a table, annotations and refusals after, raft last; a line saying what was compared.
 *
 * @example diagnoseLines(await diagnose(...)).at(-1) // 'no findings (23 objects, 47 rows of kovn in NB)'
 */
export function diagnoseLines(d: Diagnosis): string[] {
  const out: string[] = [];
  if (d.rows.length > 0) {
    const rows = d.rows.map((r) => [
      r.code,
      r.table,
      shown(r.key),
      ref(r.owner),
      [...(r.fields ?? []), ...(r.alsoIn ?? []).map((a) => `also ${a.table} ${shown(a.key)}`)].join(', '),
    ]);
    out.push(...table([['FINDING', 'TABLE', 'ROW', 'OBJECT', 'DETAIL'], ...rows]));
  }
  for (const a of d.annotations) {
    if (a.code === 'duplicate-address') {
      out.push(`duplicate-address: ${shown(a.address)} claimed by ${a.owners.map(shown).join(', ')}`);
      continue;
    }
    out.push(`annotation-disagrees: ${a.pod ? ref(a.pod) : shown(a.owner)}`);
    for (const [src, rec] of Object.entries(a.records)) out.push(`  ${src}: ${shown(rec ?? '')}`);
    for (const e of a.effects) out.push(`  would change ${e.table} ${shown(e.key)} (${(e.fields ?? []).join(', ')})`);
  }
  for (const w of d.refused)
    out.push(`refused: ${ref({ kind: w.kind, namespace: w.namespace, name: w.name })} ${w.code}: ${shown(w.message)}`);
  for (const [db, problems] of Object.entries(d.raft))
    for (const p of problems) out.push(`raft ${db} ${p.code}: ${shown(p.path)}: ${shown(p.message)}`);
  const n = findings(d);
  const extra = d.notActedOn.length > 0 ? `; ${d.notActedOn.length} field(s) read and not acted on, in --json` : '';
  out.push(
    `${n === 0 ? 'no findings' : `${n} finding(s)`} (${d.checked.objects} objects, ${d.checked.rows} rows of kovn in NB${extra})`,
  );
  return out;
}

/**
 * The two verdicts side by side, then each side's trace.
 *
 * @example koTraceLines(await koTrace(probe, opts), formatTrace)[3] // '  agree'
 */
export function koTraceLines(t: KoTrace, formatTrace: (s: NonNullable<KoTrace['sim']['trace']>['stages']) => string) {
  const p = t.probe;
  const label = `${p.from} -> ${p.to} ${p.protocol}${p.port !== undefined ? `/${p.port}` : ''}`;
  const v = (allowed: boolean, reason?: string) => `${allowed ? 'allowed' : 'denied'}${reason ? ` (${reason})` : ''}`;
  const out = [
    shown(label),
    `  simulator (the objects): ${shown(v(t.sim.allowed, t.sim.reason))}`,
    `  ovn-trace (the live SB): ${shown(v(t.ovn.allowed, t.ovn.reason))}`,
    ...(t.ovn.note ? [`  note: ${shown(t.ovn.note)}`] : []),
    `  ${t.agree ? 'agree' : 'DISAGREE: kovn ko diagnose says which rows differ from the objects'}`,
  ];
  if (t.sim.trace !== undefined) out.push('', 'simulator:', shownLines(formatTrace(t.sim.trace.stages)));
  if (t.ovn.text !== undefined) out.push('', 'ovn-trace:', shownLines(t.ovn.text.trimEnd()));
  if (t.ovn.retransmission !== undefined)
    out.push('', 'ovn-trace (retransmission):', shownLines(t.ovn.retransmission.trimEnd()));
  return out;
}

/**
 * Findings that make `kovn ko diagnose` exit 1.
 *
 * @example process.exitCode = findings(d) === 0 ? 0 : 1;
 */
export const findings = (d: Diagnosis): number =>
  d.rows.length + d.annotations.length + d.refused.length + d.raft.nb.length + d.raft.sb.length;
