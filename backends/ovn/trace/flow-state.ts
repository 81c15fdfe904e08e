/**
 * The flow ovn-trace carries through a trace, as far as the text lets us
 * follow it: the packet's header fields and the registers (xxreg0/1, xreg4,
 * flags, ct_mark, ct_label, pkt.mark) with a mask of bits whose value the
 * text does not show (results of check_in_port_sec() and friends). Loading
 * such bits into a packet field is an error, never a guess.
 */
import { FIELD_KIND, FIELD_ORDER, type FieldName } from '../../../model/packet/fields.ts';
import type { Packet } from '../../../model/packet/packet.ts';
import type { FieldSlice } from './actions.ts';
import { TraceParseError, type TraceLineRef } from './errors.ts';

const PACKET_FIELDS: ReadonlySet<string> = new Set(FIELD_ORDER);

const mask = (width: number): bigint => (1n << BigInt(width)) - 1n;

interface Reg {
  value: bigint;
  unknown: bigint;
}

/** Registers ovn-trace clears when a packet goes from ingress to egress (all but inport/outport). */
const PIPELINE_REGISTERS = ['xxreg0', 'xxreg1', 'xreg4', 'flags'];

export class FlowState {
  packet: Record<string, unknown>;
  readonly regs: Map<string, Reg>;

  constructor(packet: Packet, regs?: Map<string, Reg>) {
    this.packet = { ...packet };
    this.regs = regs ?? new Map();
  }

  /** An independent copy (ovn-trace forks the flow for ct_*, clone, icmp4 {...}, output). */
  clone(): FlowState {
    const regs = new Map<string, Reg>();
    for (const [k, r] of this.regs) regs.set(k, { ...r });
    return new FlowState(this.packet as unknown as Packet, regs);
  }

  clearPipelineRegisters(): void {
    for (const r of PIPELINE_REGISTERS) this.regs.delete(r);
  }

  get current(): Packet {
    return { ...this.packet } as unknown as Packet;
  }

  replacePacket(p: Packet): void {
    this.packet = { ...p };
  }

  #readStorage(s: FieldSlice): Reg {
    if (!PACKET_FIELDS.has(s.storage)) return this.regs.get(s.storage) ?? { value: 0n, unknown: 0n };
    const v = this.packet[s.storage];
    return { value: v === undefined ? 0n : BigInt(v as number | bigint), unknown: 0n };
  }

  read(s: FieldSlice): Reg {
    const r = this.#readStorage(s);
    const m = mask(s.width);
    return { value: (r.value >> BigInt(s.offset)) & m, unknown: (r.unknown >> BigInt(s.offset)) & m };
  }

  /**
   * Writes `value` into the slice. A packet field the packet does not have
   * is left alone: ovn-trace skips loads whose prerequisites fail
   * (mf_are_prereqs_ok), and our packets have exactly their headers' fields.
   */
  write(s: FieldSlice, v: Reg, at: TraceLineRef): void {
    const m = mask(s.width) << BigInt(s.offset);
    const put = (old: Reg): Reg => ({
      value: (old.value & ~m) | ((v.value << BigInt(s.offset)) & m),
      unknown: (old.unknown & ~m) | ((v.unknown << BigInt(s.offset)) & m),
    });
    if (!PACKET_FIELDS.has(s.storage)) {
      this.regs.set(s.storage, put(this.#readStorage(s)));
      return;
    }
    if (this.packet[s.storage] === undefined) return;
    const next = put(this.#readStorage(s));
    if (next.unknown !== 0n) {
      throw new TraceParseError('unknown-value', `${s.name} loaded from a value the trace does not show`, at);
    }
    this.setField(s.storage as FieldName, next.value);
  }

  setField(f: FieldName, v: bigint | number): void {
    const kind = FIELD_KIND[f];
    this.packet[f] = kind === 'ip6' ? BigInt(v) : Number(v);
  }

  field(f: FieldName): number | bigint | undefined {
    return this.packet[f] as number | bigint | undefined;
  }
}
