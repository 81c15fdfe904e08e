/**
 * The state one pipeline pass works on: the packet, the logical ports, the
 * conntrack view (ct_state/ct_mark/ct_label of the last ct action), the
 * logical flags, and the registers northd's flows use, by name rather than
 * by number (`hintAllowNew` is reg0[7], `nexthop` is reg0/xxreg0, ...).
 *
 * It is also the match language's packet view (`MatchPacket`), so a compiled
 * ACL or policy reads fields straight from it.
 */
import type { MatchStorageKey } from '../../model/match/index.ts';
import type { LbVip } from '../compile/types.ts';
import type { FieldName } from '../../model/packet/fields.ts';
import { changedFields, type FieldPatch, type Packet, withFields } from '../../model/packet/packet.ts';

/** Packets the pipelines make themselves rather than forward. */
export type GeneratedKind =
  | 'arp-reply'
  | 'nd-na'
  | 'icmp-echo-reply'
  | 'icmp-error'
  | 'tcp-reset'
  | 'sctp-abort'
  | 'arp-request'
  | 'nd-ns';

/** Logical flags (MLF_* bits of reg10) the simulator uses. */
export const FLAG_LOOPBACK = 1 << 0;
export const FLAG_FORCE_SNAT_FOR_DNAT = 1 << 2;
export const FLAG_FORCE_SNAT_FOR_LB = 1 << 3;
export const FLAG_SKIP_SNAT_FOR_LB = 1 << 9;
export const FLAG_USE_SNAT_ZONE = 1 << 11;

/** Registers of the switch pipeline (REGBIT_* of northd.c), by meaning. */
export interface SwitchRegs {
  portSecDrop: boolean;
  conntrackDefrag: boolean;
  conntrackNat: boolean;
  conntrackCommit: boolean;
  aclStateless: boolean;
  hintAllowNew: boolean;
  hintAllow: boolean;
  hintDrop: boolean;
  hintBlock: boolean;
  aclAllowRel: boolean;
  aclLabel: boolean;
  label: number;
  hairpin: boolean;
  hairpinReply: boolean;
  /** reg1/reg2 (xxreg1 for IPv6): the VIP and port a new LB connection was sent to. */
  origDstIp?: number | bigint | undefined;
  origDstPort?: number | undefined;
  /** Not a register: the VIP pre_stateful found for `vipPacket`, so ls_in_lb need not look it up again. */
  vipPacket?: Packet | undefined;
  vip?: LbVip | undefined;
  /** Not a register: the VIP whose address and port pre_stateful put in reg1/reg2. */
  regVip?: LbVip | undefined;
  /** reg9[6] (`chk_lb_aff()`) with reg4/reg8: the backend a learned affinity names, when one matched. */
  lbAffBackend?: string | undefined;
}

/** Registers of the router pipeline, by meaning. */
export interface RouterRegs {
  /** xreg0[0..47]: the MAC of the port the packet came in on. */
  inportMac: number;
  /** reg0 / xxreg0: next hop. */
  nexthop?: number | bigint | undefined;
  /** reg1 / xxreg1: router address to source ARP/ND from. */
  srcIp?: number | bigint | undefined;
  /** reg7: the route table of the inport. */
  routeTable: string;
  /** reg9[4]: REGBIT_DST_NAT_IP_LOCAL. */
  dnatLocal: boolean;
  /** reg9[0]: REGBIT_EGRESS_LOOPBACK (the packet re-entered from lr_out_egr_loop). */
  egressLoopback: boolean;
  /** The route or policy that set outport (for trace and ECMP). */
  decided?: 'route' | 'policy' | undefined;
  /** lr_in_gw_redirect sent the packet to a gateway port resident elsewhere. */
  redirected?: boolean | undefined;
}

export const freshSwitchRegs = (): SwitchRegs => ({
  portSecDrop: false,
  conntrackDefrag: false,
  conntrackNat: false,
  conntrackCommit: false,
  aclStateless: false,
  hintAllowNew: false,
  hintAllow: false,
  hintDrop: false,
  hintBlock: false,
  aclAllowRel: false,
  aclLabel: false,
  label: 0,
  hairpin: false,
  hairpinReply: false,
  origDstIp: undefined,
  origDstPort: undefined,
  vipPacket: undefined,
  vip: undefined,
  regVip: undefined,
  lbAffBackend: undefined,
});

/** Placeholders for the registers a pass does not use: frozen, so a stray write throws. */
const NO_SWITCH_REGS: SwitchRegs = Object.freeze(freshSwitchRegs());

export const freshRouterRegs = (): RouterRegs => ({
  inportMac: 0,
  nexthop: undefined,
  srcIp: undefined,
  routeTable: '',
  dnatLocal: false,
  egressLoopback: false,
  decided: undefined,
  redirected: undefined,
});

const NO_ROUTER_REGS: RouterRegs = Object.freeze(freshRouterRegs());

function resetSwitchRegs(r: SwitchRegs): void {
  r.portSecDrop = r.conntrackDefrag = r.conntrackNat = r.conntrackCommit = r.aclStateless = false;
  r.hintAllowNew = r.hintAllow = r.hintDrop = r.hintBlock = r.aclAllowRel = r.aclLabel = false;
  r.label = 0;
  r.hairpin = r.hairpinReply = false;
  r.origDstIp = undefined;
  r.origDstPort = undefined;
  r.vipPacket = undefined;
  r.vip = undefined;
  r.regVip = undefined;
  r.lbAffBackend = undefined;
}

function resetRouterRegs(r: RouterRegs): void {
  r.inportMac = 0;
  r.nexthop = undefined;
  r.srcIp = undefined;
  r.routeTable = '';
  r.dnatLocal = false;
  r.egressLoopback = false;
  r.decided = undefined;
  r.redirected = undefined;
}

/** Placeholder before the first pass. */
const NO_PACKET: Packet = Object.freeze({ 'eth.src': 0, 'eth.dst': 0, 'eth.type': 0 });

/**
 * A header field the datapath rewrote (NAT by a ct() that does not
 * recirculate) while the flow being translated still reads the old value:
 * `from` is what later stages match, `to` what the datapath holds, until the
 * next recirculation shows it (see PipelineCtx.wire).
 */
export interface HiddenField {
  readonly field: FieldName;
  readonly from: number | bigint | undefined;
  readonly to: number | bigint | undefined;
}

/** What a packet carries from one pipeline to the next within a datapath (registers do not survive). */
export interface Carry {
  readonly ctState: number;
  readonly ctMark: number;
  readonly ctLabel: bigint;
  readonly ctZone?: string | undefined;
  /** The conntrack entry attached to the packet by the last ct action (and its direction). */
  readonly ctEntry?: number | undefined;
  readonly ctReply?: boolean;
  readonly flags: number;
  /** NAT the datapath did that the flow does not show yet. */
  readonly hidden?: readonly HiddenField[] | undefined;
}

export const NO_CARRY: Carry = Object.freeze({
  ctState: 0,
  ctMark: 0,
  ctLabel: 0n,
  ctZone: undefined,
  ctEntry: undefined,
  ctReply: false,
  flags: 0,
});

/**
 * One pass's state. A simulation run keeps one and resets it per pass
 * (`begin`), so a pass allocates nothing here; the register objects are
 * reset in place.
 */
export class PipelineCtx {
  packet: Packet = NO_PACKET;
  inport = '';
  outport = '';
  ctState = 0;
  ctMark = 0;
  ctLabel = 0n;
  /** Zone of the last ct action (for commits that follow a lookup). */
  ctZone: string | undefined = undefined;
  /** Entry attached by the last ct action: a later ct action in the same zone reuses it. */
  ctEntry: number | undefined = undefined;
  ctReply = false;
  flags = 0;
  /** Fields the datapath NATed behind the flow's back (HiddenField); undefined when none. */
  hidden: readonly HiddenField[] | undefined = undefined;
  sw: SwitchRegs = NO_SWITCH_REGS;
  /** Set once this pass turned the packet into one the network generated (e.g. an echo reply). */
  generated: GeneratedKind | undefined = undefined;
  rt: RouterRegs = NO_ROUTER_REGS;
  private readonly swRegs: SwitchRegs = freshSwitchRegs();
  private readonly rtRegs: RouterRegs = freshRouterRegs();

  /** Start a pass: the job's packet, ports and carried state; fresh registers of the datapath's kind. */
  begin(
    packet: Packet,
    inport: string,
    outport: string,
    carry: Carry,
    generated: GeneratedKind | undefined,
    kind: 'switch' | 'router',
  ): void {
    this.packet = packet;
    this.inport = inport;
    this.outport = outport;
    this.generated = generated;
    if (kind === 'switch') {
      resetSwitchRegs(this.swRegs);
      this.sw = this.swRegs;
      this.rt = NO_ROUTER_REGS;
    } else {
      resetRouterRegs(this.rtRegs);
      this.rt = this.rtRegs;
      this.sw = NO_SWITCH_REGS;
    }
    this.ctState = carry.ctState;
    this.ctMark = carry.ctMark;
    this.ctLabel = carry.ctLabel;
    this.ctZone = carry.ctZone;
    this.ctEntry = carry.ctEntry;
    this.ctReply = carry.ctReply === true;
    this.flags = carry.flags;
    this.hidden = carry.hidden;
  }

  carry(): Carry {
    return {
      ctState: this.ctState,
      ctMark: this.ctMark,
      ctLabel: this.ctLabel,
      ctZone: this.ctZone,
      ctEntry: this.ctEntry,
      ctReply: this.ctReply,
      flags: this.flags,
      ...(this.hidden !== undefined ? { hidden: this.hidden } : {}),
    };
  }

  /**
   * The packet as the datapath holds it: what the stages match, with the
   * hidden NAT applied to each field no stage has set since (a later
   * set_field wins, as xlate commits it after the ct action). This is what
   * leaves a port, what conntrack keys on and what pinctrl is sent.
   */
  wire(): Packet {
    const hidden = this.hidden;
    if (hidden === undefined) return this.packet;
    const patch: Record<string, number | bigint | undefined> = {};
    for (const h of hidden) if (this.packet[h.field] === h.from) patch[h.field] = h.to;
    return withFields(this.packet, patch as FieldPatch);
  }

  /** A recirculation: the datapath's packet comes back and later stages match it. */
  reveal(): void {
    if (this.hidden === undefined) return;
    this.packet = this.wire();
    this.hidden = undefined;
  }

  /**
   * After a ct() without recirculation: the datapath turned `wire` into
   * `natted`, the flow still reads `view`.
   */
  hide(view: Packet, wire: Packet, natted: Packet): void {
    this.packet = view;
    const changed = changedFields(wire, natted);
    if (changed.length === 0) return;
    const kept = (this.hidden ?? []).filter((h) => !changed.includes(h.field));
    this.hidden = [...kept, ...changed.map((field) => ({ field, from: view[field], to: natted[field] }))];
  }

  /** `ct_clear`: forget the conntrack state. */
  ctClear(): void {
    this.ctState = 0;
    this.ctMark = 0;
    this.ctLabel = 0n;
    this.ctZone = undefined;
    this.ctEntry = undefined;
    this.ctReply = false;
  }

  hasFlag(f: number): boolean {
    return (this.flags & f) !== 0;
  }

  setFlag(f: number, on = true): void {
    this.flags = on ? this.flags | f : this.flags & ~f;
  }

  /** MatchPacket: field values by storage key. Registers read as zero (NB rows never match on them). */
  get(key: MatchStorageKey): number | bigint | undefined {
    // Header fields first (most reads); no header field shares a name with the metadata below.
    const v = (this.packet as unknown as Record<string, number | bigint | undefined>)[key];
    if (v !== undefined) return v;
    switch (key) {
      case 'ct_state':
        return this.ctState;
      case 'ct_mark':
        return this.ctMark;
      case 'ct_label':
        return this.ctLabel;
      case 'flags':
        return this.flags;
      case 'xxreg0':
      case 'xxreg1':
        return 0n;
      case 'xreg4':
      case 'pkt.mark':
        return 0;
      default:
        return undefined;
    }
  }
}
