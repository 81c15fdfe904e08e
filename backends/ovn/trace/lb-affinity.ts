/**
 * Load-balancer affinity in ovn-trace 23.03 (rule `lb-affinity-not-executed`
 * of normalize.ts). OVN learns a client's backend with `commit_lb_aff(...)`,
 * an OpenFlow `learn` into a table that `chk_lb_aff()` looks up later; in
 * 23.03 the packet that learns ends there (northd writes the learn flow as
 * `commit_lb_aff(...); /* drop *\/`). ovn-trace executes neither action
 * (utilities/ovn-trace.c: both cases are `break;`), so no trace can show a
 * later connection of that client, which OVS sends to the learned backend.
 *
 * What the learned flow does is known (lib/actions.c encode_COMMIT_LB_AFF):
 * for a new connection of that client to that VIP on that switch it loads
 * the backend's address into reg4 (IPv4) or xxreg0 (IPv6, on a switch), its
 * port into reg8[0..15], and chk_lb_aff() returns 1 into reg9[6]
 * (REGBIT_KNOWN_LB_SESSION). For IPv4, no stage of a switch's ingress before
 * ls_in_lb_aff_check reads or writes reg4, reg8 or reg9 (northd.c's register
 * map), and ovn-trace keeps a microflow's registers, so a trace whose
 * microflow sets them shows what OVS does with the learned flow in place:
 * ls_in_lb's priority-150 flow for that backend. Not so for IPv6: xxreg0 is
 * reg0..reg3, which the earlier stages write (reg0's conntrack bits,
 * reg2[0..15] the VIP's port), so a preset backend does not survive to
 * ls_in_lb (seen: the 150 flow does not match). There only reg9[6] is set
 * and --lb-dst names the learned backend: ovn-trace DNATs to it at the
 * first ct_lb_mark (ls_in_pre_stateful; rule lb-dst-early-dnat, which the
 * tracer checks) instead of in ls_in_lb, and with reg9[6] == 1
 * ls_in_lb_aff_learn lets the packet pass: the packet leaves ls_in_lb_aff_learn
 * as OVS's does, addressed to the learned backend.
 * Router load balancers (lr_in_lb_aff_*) use other registers and are not
 * read here: kovn attaches load balancers to switches only.
 */
import { formatIPv4 } from '../../../model/addr/index.ts';
import { parseEndpoint } from '../../../sim/compile/lb.ts';
import type { OvnTraceStage } from './parse.ts';

/** What one `commit_lb_aff(...)` of a trace learned. */
export interface LearnedAffinity {
  /** The switch whose ls_in_lb_aff_learn learned it. */
  readonly datapath: string;
  /** As commit_lb_aff prints them: `10.96.0.10:80`, `[fd00::a]:80`, `10.96.0.1` (no port). */
  readonly vip: string;
  readonly backend: string;
  /** The action as printed (for notes). */
  readonly action: string;
}

const COMMIT = /^commit_lb_aff\(vip = "([^"]+)", backend = "([^"]+)"/;

/**
 * The affinity a trace learned in a switch's ls_in_lb_aff_learn, if any (the
 * packet ended there: the 23.03 learn flow has no `next`).
 *
 * @example
 * learnedAffinity(trace.stages)
 * // { datapath: 'ovn-default', vip: '10.96.0.10:80', backend: '10.16.0.2:8080', action: 'commit_lb_aff(...)' }
 */
export function learnedAffinity(stages: readonly OvnTraceStage[]): LearnedAffinity | undefined {
  for (const s of stages) {
    if (s.stage !== 'ls_in_lb_aff_learn') continue;
    for (const a of s.actions) {
      const m = COMMIT.exec(a);
      if (m) return { datapath: s.datapath, vip: m[1]!, backend: m[2]!, action: a };
    }
  }
  return undefined;
}

/** How to trace a packet that meets a learned affinity (see the header). */
export interface AffinityRetrace {
  /** Microflow terms: the registers the learned flow loads. */
  readonly registers: string;
  /** The backend for --lb-dst, where the registers cannot carry it (IPv6). */
  readonly lbBackend?: string;
  /** How, in words, for notes. */
  readonly how: string;
}

/**
 * The registers chk_lb_aff() would load from the learned flow, as microflow
 * terms, and for an IPv6 backend the --lb-dst that stands in for them.
 *
 * @example affinityRetrace({ backend: '10.16.0.2:8080' }).registers // 'reg9[6] == 1 && reg4 == 10.16.0.2 && reg8[0..15] == 8080'
 */
export function affinityRetrace(a: Pick<LearnedAffinity, 'backend'>): AffinityRetrace {
  const why = 'which chk_lb_aff() loads from the learned flow and ovn-trace does not run';
  const e = parseEndpoint(a.backend);
  if (e === undefined || e.family === 6) {
    return {
      registers: 'reg9[6] == 1',
      lbBackend: a.backend,
      how: `traced with reg9[6] == 1, ${why}, and --lb-dst=${a.backend} for the IPv6 backend it loads into xxreg0 (which earlier stages overwrite in a microflow)`,
    };
  }
  const terms = ['reg9[6] == 1', `reg4 == ${formatIPv4(Number(e.ip))}`];
  if (e.port !== undefined) terms.push(`reg8[0..15] == ${e.port}`);
  const registers = terms.join(' && ');
  return { registers, how: `traced with ${registers}, ${why}` };
}
