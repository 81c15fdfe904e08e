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
import type { Packet } from '../packet/packet.ts';

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
  origDstIp?: number | bigint;
  origDstPort?: number;
}

/** Registers of the router pipeline, by meaning. */
export interface RouterRegs {
  /** xreg0[0..47]: the MAC of the port the packet came in on. */
  inportMac: number;
  /** reg0 / xxreg0: next hop. */
  nexthop?: number | bigint;
  /** reg1 / xxreg1: router address to source ARP/ND from. */
  srcIp?: number | bigint;
  /** reg7: the route table of the inport. */
  routeTable: string;
  /** reg9[4]: REGBIT_DST_NAT_IP_LOCAL. */
  dnatLocal: boolean;
  /** reg9[0]: REGBIT_EGRESS_LOOPBACK (the packet re-entered from lr_out_egr_loop). */
  egressLoopback: boolean;
  /** The route or policy that set outport (for trace and ECMP). */
  decided?: 'route' | 'policy';
  /** lr_in_gw_redirect sent the packet to a gateway port resident elsewhere. */
  redirected?: boolean;
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
});

/** Placeholders for the registers a pass does not use: frozen, so a stray write throws. */
const NO_SWITCH_REGS: SwitchRegs = Object.freeze(freshSwitchRegs());
const NO_ROUTER_REGS: RouterRegs = Object.freeze({ inportMac: 0, routeTable: '', dnatLocal: false, egressLoopback: false });

export const freshRouterRegs = (): RouterRegs => ({
  inportMac: 0,
  routeTable: '',
  dnatLocal: false,
  egressLoopback: false,
});

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
}

export const NO_CARRY: Carry = { ctState: 0, ctMark: 0, ctLabel: 0n, flags: 0 };

export class PipelineCtx {
  ctState: number;
  ctMark: number;
  ctLabel: bigint;
  /** Zone of the last ct action (for commits that follow a lookup). */
  ctZone: string | undefined;
  /** Entry attached by the last ct action: a later ct action in the same zone reuses it. */
  ctEntry: number | undefined;
  ctReply: boolean;
  flags: number;
  sw: SwitchRegs = freshSwitchRegs();
  /** Set once this pass turned the packet into one the network generated (e.g. an echo reply). */
  generated: GeneratedKind | undefined;
  rt: RouterRegs = freshRouterRegs();

  constructor(
    public packet: Packet,
    public inport: string,
    public outport: string,
    carry: Carry,
    generated?: GeneratedKind,
    kind: 'switch' | 'router' = 'switch',
  ) {
    this.generated = generated;
    this.sw = kind === 'switch' ? freshSwitchRegs() : NO_SWITCH_REGS;
    this.rt = kind === 'router' ? freshRouterRegs() : NO_ROUTER_REGS;
    this.ctState = carry.ctState;
    this.ctMark = carry.ctMark;
    this.ctLabel = carry.ctLabel;
    this.ctZone = carry.ctZone;
    this.ctEntry = carry.ctEntry;
    this.ctReply = carry.ctReply === true;
    this.flags = carry.flags;
  }

  carry(): Carry {
    return { ctState: this.ctState, ctMark: this.ctMark, ctLabel: this.ctLabel, ctZone: this.ctZone, ctEntry: this.ctEntry, ctReply: this.ctReply, flags: this.flags };
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
        return this.packet[key];
    }
  }
}
