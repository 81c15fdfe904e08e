/**
 * The running counts of a difftest run (run.ts): agreement per pair of
 * worlds, the rules partial comparisons were made under, ovn-trace's and
 * the datapath's artefacts, crashes, connections and time spent.
 */
import type { ThreeWayOutcome } from './three-way.ts';

type Cases = { count: number; cases: number[] };

/** Adds a case to a by-kind tally, keeping a few case indices each. */
function note(to: Record<string, Cases>, kind: string, index: number): void {
  const a = (to[kind] ??= { count: 0, cases: [] });
  a.count++;
  if (a.cases.length < 5) a.cases.push(index);
}

/** @example const t = new Tally(); t.add(0, outcome); t.agree */
export class Tally {
  agree = 0;
  connections = 0;
  readonly partial: Record<string, number> = {};
  readonly pairs = { simDp: { cases: 0, agree: 0 }, simTrace: { cases: 0, agree: 0 }, traceDp: { cases: 0, agree: 0 } };
  readonly artefacts: Record<string, Cases> = {};
  readonly datapathArtefacts: Record<string, Cases> = {};
  readonly crashes = { count: 0, cases: [] as { case: number; step: number; why: string }[] };
  readonly timing = { loadMs: 0, traceMs: 0, simMs: 0, datapathMs: 0, shrinkMs: 0 };

  add(index: number, o: ThreeWayOutcome): void {
    this.timing.loadMs += o.ms.load;
    this.timing.traceMs += o.ms.trace;
    this.timing.simMs += o.ms.sim;
    this.timing.datapathMs += o.ms.datapath;
    const judged = o.datapath !== undefined && o.datapath.crashedAt !== 0;
    const judgeAgrees = judged ? o.datapath!.agree : (o.trace?.agree ?? false);
    if (judgeAgrees) this.agree++;
    if (o.datapath?.crashedAt !== undefined) {
      this.crashes.count++;
      const why = o.datapath.unavailable === undefined ? 'vswitchd' : 'ovn-controller';
      if (this.crashes.cases.length < 10) this.crashes.cases.push({ case: index, step: o.datapath.crashedAt, why });
    }
    if (o.datapath && judged) {
      this.pairs.simDp.cases++;
      if (o.datapath.agree) this.pairs.simDp.agree++;
      if (o.datapath.agree && o.datapath.artefact !== undefined)
        note(this.datapathArtefacts, o.datapath.artefact, index);
      if (o.datapath.datapath.length > 1) this.connections++;
    }
    if (o.trace) {
      this.pairs.simTrace.cases++;
      if (o.trace.agree) {
        this.pairs.simTrace.agree++;
        if (!('error' in o.trace.ovn))
          for (const p of o.trace.ovn.partial ?? []) this.partial[p.rule] = (this.partial[p.rule] ?? 0) + 1;
      }
    }
    const td = o.traceDatapath;
    if (td) {
      this.pairs.traceDp.cases++;
      if (td.agree) this.pairs.traceDp.agree++;
      else this.#artefact(index, o, td.why);
    }
  }

  #artefact(index: number, o: ThreeWayOutcome, why: 'error' | 'partial' | undefined): void {
    const ovn = o.trace?.ovn;
    let kind = 'outputs';
    if (ovn && 'error' in ovn) kind = `error ${ovn.error.code}`;
    else if (why === 'partial') kind = `partial ${(ovn?.partial ?? []).map((p) => p.rule).join('+')}`;
    else {
      const d = o.traceDatapath?.diff;
      if (d?.verdict) kind = `verdict datapath ${d.verdict.sim} / ovn-trace ${d.verdict.ovn}`;
      else if (d) {
        const fields = [...new Set(d.changed.flatMap((c) => c.fields.map((f) => f.field)))].sort();
        kind = `outputs ${fields.join(',')}${d.onlySim.length ? ' +datapath' : ''}${d.onlyOvn.length ? ' +ovn-trace' : ''}`;
      }
      // ovn-trace's own rules that named the difference, when any fired.
      const rules = ovn && !('error' in ovn) ? [...(ovn.caveats ?? [])] : [];
      if (rules.length) kind += ` [${rules.join(',')}]`;
    }
    note(this.artefacts, kind, index);
  }
}
