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
import { formatField } from '../../model/packet/format.ts';
import { changedFields, type Packet } from '../../model/packet/packet.ts';
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
  // Every lookup recirculates: the packet comes back as the datapath holds it.
  ctx.reveal();
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
 * A committing action (ct_lb_mark(backends), ct_dnat(ip), ct_snat(ip),
 * ct_commit, ct_snat_to_vip).
 *
 * Two of them OVN encodes without recirculation: `ct_commit { ... }`
 * (lib/actions.c encode_CT_COMMIT_V2: NX_CT_RECIRC_NONE) and
 * `ct_snat_to_vip` (a resubmit to the table ovn-controller fills with
 * `ct(commit,zone=reg12,nat(src=VIP))`, controller/lflow.c
 * add_lb_ct_snat_hairpin_vip_flow). After a ct() that does not recirculate,
 * OVS hides its results for the rest of the translation
 * (ofproto-dpif-xlate.c compose_conntrack_action): it clears the conntrack
 * fields (flow_clear_conntrack), so later stages see the packet untracked
 * (`!ct.trk`, ct_mark 0) until the next ct action that recirculates, and
 * the NAT it asked of the datapath is not written back into the flow, so
 * later stages match the addresses from before it while the packet that
 * leaves carries the NAT (PipelineCtx.hide). Set `recirculates: false` for
 * them. Seen on real packets: after ls_in_stateful unblocked a connection,
 * a reject ACL towards a router port ran on the `!ct.trk` hints and did not
 * block it again, so its reply reached the client (seed 7 case 1051); a
 * client balanced to itself, SNATed to the VIP by ct_snat_to_vip, met the
 * to-lport ACLs with its own address as source, an allow-stateless one kept
 * it out of conntrack, and the backend's reply found no connection (seed 777
 * case 1433).
 */
export function ctCommit<D extends Datapath>(
  s: StageRun<D>,
  spec: CtActionSpec & { readonly commit: CommitOptions; readonly recirculates?: false },
): CtLookup {
  const { ctx } = s;
  const recirculates = spec.recirculates !== false;
  const view = ctx.packet;
  if (recirculates) ctx.reveal();
  // Conntrack works on the packet the datapath holds.
  const before = ctx.wire();
  const res = attached(ctx, spec.zone)
    ? s.run.ct.commitCached(ctx.ctEntry!, ctx.ctReply, before, { ...spec.commit, state: ctx.ctState })
    : s.run.ct.commit(spec.zone, before, spec.commit);
  applyCt(ctx, res, spec.zone);
  if (!recirculates) {
    // The datapath keeps its connection (a later ct() in that zone finds it); the flow's fields are gone.
    ctx.ctState = 0;
    ctx.ctMark = 0;
    ctx.ctLabel = 0n;
    ctx.hide(view, before, res.packet);
  }
  if (s.tracing) {
    const note = [spec.note, recirculates ? undefined : hiddenNote(before, res.packet)].filter((x) => x !== undefined);
    s.record({
      ...(spec.rule ? { rule: spec.rule } : {}),
      action: spec.action,
      before: view,
      ct: { zone: spec.zone, state: res.state, op: 'commit' },
      ...(note.length ? { note: note.join('; ') } : {}),
    });
  }
  return res;
}

/** The trace's word on NAT a non-recirculating ct() did: the stage shows no change, the datapath made one. */
function hiddenNote(wire: Packet, natted: Packet): string | undefined {
  const fields = changedFields(wire, natted);
  if (fields.length === 0) return undefined;
  const text = fields.map((f) => {
    const v = natted[f];
    return `${f}=${v === undefined ? '' : formatField(f, v)}`;
  });
  return `NATed in the datapath, unseen by later stages until a recirculation: ${text.join(', ')}`;
}
