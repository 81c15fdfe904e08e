/**
 * The ct actions of OVN as the pipelines use them, on top of the conntrack
 * transaction: each updates the pass's ct_state/ct_mark/ct_label (what later
 * `ct.*` matches read) and, for NAT actions, the packet.
 *
 *   ct_next                lookup, no NAT
 *   ct_lb_mark / ct_dnat / ct_snat (no args)   lookup, apply existing NAT
 *   ct_lb_mark(backends)   commit a new connection with DNAT (ct_mark.natted)
 *   ct_dnat(ip) / ct_snat(ip)                  commit with NAT (or apply existing)
 *   ct_commit { ... }      commit, setting ct_mark/ct_label bits
 */
import type { CommitOptions, CtLookup } from '../conntrack/state.ts';
import type { Datapath } from '../compile/types.ts';
import type { PipelineCtx } from './context.ts';
import type { StageRun } from './run.ts';

export function applyCt(ctx: PipelineCtx, res: CtLookup, zone: string): void {
  ctx.ctState = res.state;
  ctx.ctMark = res.entry?.mark ?? 0;
  ctx.ctLabel = res.entry?.label ?? 0n;
  ctx.ctZone = zone;
  ctx.ctEntry = res.entry?.id;
  ctx.ctReply = res.reply === true;
  ctx.packet = res.packet;
}

/** Whether the packet already carries a connection of this zone (OVS skb_nfct_cached). */
const attached = (ctx: PipelineCtx, zone: string): boolean => ctx.ctZone === zone && ctx.ctEntry !== undefined;

export interface CtActionSpec {
  readonly zone: string;
  /** Name for the trace, e.g. `ct_lb_mark`, `ct_next`, `ct_snat`. */
  readonly action: string;
  /** Apply the NAT of an existing connection. */
  readonly nat: boolean;
  readonly rule?: import('../trace.ts').TraceRule | undefined;
  readonly note?: string | undefined;
}

/** A lookup action (ct_next, ct_lb_mark, ct_dnat, ct_snat without arguments). */
export function ctLookup<D extends Datapath>(s: StageRun<D>, spec: CtActionSpec): CtLookup {
  const { ctx } = s;
  const before = ctx.packet;
  const res = attached(ctx, spec.zone)
    ? s.run.ct.cached(ctx.ctEntry!, ctx.ctReply, before, { nat: spec.nat, state: ctx.ctState })
    : s.run.ct.lookup(spec.zone, before, { nat: spec.nat });
  applyCt(ctx, res, spec.zone);
  if (s.tracing) {
    s.record({
      ...(spec.rule ? { rule: spec.rule } : {}),
      action: spec.action,
      before,
      ct: { zone: spec.zone, state: res.state, op: 'lookup' },
      ...(spec.note ? { note: spec.note } : {}),
    });
  }
  return res;
}

/**
 * A committing action (ct_lb_mark(backends), ct_dnat(ip), ct_snat(ip), ct_commit).
 *
 * `ct_commit { ... }` is the one OVN encodes without recirculation
 * (lib/actions.c encode_CT_COMMIT_V2: NX_CT_RECIRC_NONE), and after a ct()
 * that does not recirculate OVS hides its results and clears the
 * conntrack fields for the rest of the translation (ofproto-dpif-xlate.c
 * compose_conntrack_action: flow_clear_conntrack): later stages see the
 * packet untracked (`!ct.trk`, ct_mark 0) until the next ct action that
 * recirculates. Set `untracksAfter` for it. Seen on real packets (seed 7
 * case 1051): after ls_in_stateful unblocked a connection, a reject ACL
 * towards a router port ran on the `!ct.trk` hints and did not block it
 * again, so its reply reached the client.
 */
export function ctCommit<D extends Datapath>(
  s: StageRun<D>,
  spec: CtActionSpec & { readonly commit: CommitOptions; readonly untracksAfter?: boolean },
): CtLookup {
  const { ctx } = s;
  const before = ctx.packet;
  const res = attached(ctx, spec.zone)
    ? s.run.ct.commitCached(ctx.ctEntry!, ctx.ctReply, before, { ...spec.commit, state: ctx.ctState })
    : s.run.ct.commit(spec.zone, before, spec.commit);
  applyCt(ctx, res, spec.zone);
  if (spec.untracksAfter === true) {
    // The datapath keeps its connection (a later ct() in that zone finds it); the flow's fields are gone.
    ctx.ctState = 0;
    ctx.ctMark = 0;
    ctx.ctLabel = 0n;
  }
  if (s.tracing) {
    s.record({
      ...(spec.rule ? { rule: spec.rule } : {}),
      action: spec.action,
      before,
      ct: { zone: spec.zone, state: res.state, op: 'commit' },
      ...(spec.note ? { note: spec.note } : {}),
    });
  }
  return res;
}
