/**
 * The simulator's working form of a packet. Every field is present
 * (`undefined` when its header is absent) and set in one fixed order, so
 * all packets inside a simulation share one object shape: the stages read
 * and copy them through monomorphic property accesses (copying packets of a
 * few dozen shapes with `{...p}` costs several times more).
 *
 * Packets enter a simulation in any form ({@link SimPacket.of}) and leave it
 * (outputs, the selector's view) in the public form, only the fields
 * present, in header order ({@link publicPacket}). Copies are made, never
 * edits of a packet another pass may hold: `new SimPacket(p)`, then set
 * fields on the copy.
 */
import type { InnerTuple } from './fields.ts';
import type { Packet } from './packet.ts';

export class SimPacket implements Packet {
  declare 'eth.src': number;
  declare 'eth.dst': number;
  declare 'eth.type': number;
  declare 'vlan.tci': number | undefined;
  declare 'arp.op': number | undefined;
  declare 'arp.spa': number | undefined;
  declare 'arp.tpa': number | undefined;
  declare 'arp.sha': number | undefined;
  declare 'arp.tha': number | undefined;
  declare 'ip.proto': number | undefined;
  declare 'ip.ttl': number | undefined;
  declare 'ip.dscp': number | undefined;
  declare 'ip.ecn': number | undefined;
  declare 'ip.frag': number | undefined;
  declare 'ip4.src': number | undefined;
  declare 'ip4.dst': number | undefined;
  declare 'ip6.src': bigint | undefined;
  declare 'ip6.dst': bigint | undefined;
  declare 'ip6.label': number | undefined;
  declare 'icmp4.type': number | undefined;
  declare 'icmp4.code': number | undefined;
  declare 'icmp6.type': number | undefined;
  declare 'icmp6.code': number | undefined;
  declare 'icmp.id': number | undefined;
  declare 'nd.target': bigint | undefined;
  declare 'nd.sll': number | undefined;
  declare 'nd.tll': number | undefined;
  declare 'tcp.src': number | undefined;
  declare 'tcp.dst': number | undefined;
  declare 'tcp.flags': number | undefined;
  declare 'udp.src': number | undefined;
  declare 'udp.dst': number | undefined;
  declare 'sctp.src': number | undefined;
  declare 'sctp.dst': number | undefined;
  declare inner: InnerTuple | undefined;

  /** A copy of `p` (another SimPacket: use {@link copyPacket} for any packet). */
  constructor(p: SimPacket) {
    this['eth.src'] = p['eth.src'];
    this['eth.dst'] = p['eth.dst'];
    this['eth.type'] = p['eth.type'];
    this['vlan.tci'] = p['vlan.tci'];
    this['arp.op'] = p['arp.op'];
    this['arp.spa'] = p['arp.spa'];
    this['arp.tpa'] = p['arp.tpa'];
    this['arp.sha'] = p['arp.sha'];
    this['arp.tha'] = p['arp.tha'];
    this['ip.proto'] = p['ip.proto'];
    this['ip.ttl'] = p['ip.ttl'];
    this['ip.dscp'] = p['ip.dscp'];
    this['ip.ecn'] = p['ip.ecn'];
    this['ip.frag'] = p['ip.frag'];
    this['ip4.src'] = p['ip4.src'];
    this['ip4.dst'] = p['ip4.dst'];
    this['ip6.src'] = p['ip6.src'];
    this['ip6.dst'] = p['ip6.dst'];
    this['ip6.label'] = p['ip6.label'];
    this['icmp4.type'] = p['icmp4.type'];
    this['icmp4.code'] = p['icmp4.code'];
    this['icmp6.type'] = p['icmp6.type'];
    this['icmp6.code'] = p['icmp6.code'];
    this['icmp.id'] = p['icmp.id'];
    this['nd.target'] = p['nd.target'];
    this['nd.sll'] = p['nd.sll'];
    this['nd.tll'] = p['nd.tll'];
    this['tcp.src'] = p['tcp.src'];
    this['tcp.dst'] = p['tcp.dst'];
    this['tcp.flags'] = p['tcp.flags'];
    this['udp.src'] = p['udp.src'];
    this['udp.dst'] = p['udp.dst'];
    this['sctp.src'] = p['sctp.src'];
    this['sctp.dst'] = p['sctp.dst'];
    this.inner = p.inner;
  }

  /** `p` in the working form (itself if it is already). */
  static of(p: Packet): SimPacket {
    return p instanceof SimPacket ? p : fromPublic(p);
  }
}

/** A fresh copy of any packet in the working form, to edit and hand on. */
export function copyPacket(p: Packet): SimPacket {
  return p instanceof SimPacket ? new SimPacket(p) : fromPublic(p);
}

let blank: SimPacket | undefined;

/**
 * A packet of any shape into the working form. Kept apart from the
 * constructor, whose reads then only ever see SimPackets (one shape: fast),
 * while the reads here see every shape callers build.
 */
function fromPublic(p: Packet): SimPacket {
  blank ??= new SimPacket({ 'eth.src': 0, 'eth.dst': 0, 'eth.type': 0 } as unknown as SimPacket);
  const q = new SimPacket(blank);
  q['eth.src'] = p['eth.src'];
  q['eth.dst'] = p['eth.dst'];
  q['eth.type'] = p['eth.type'];
  q['vlan.tci'] = p['vlan.tci'];
  q['arp.op'] = p['arp.op'];
  q['arp.spa'] = p['arp.spa'];
  q['arp.tpa'] = p['arp.tpa'];
  q['arp.sha'] = p['arp.sha'];
  q['arp.tha'] = p['arp.tha'];
  q['ip.proto'] = p['ip.proto'];
  q['ip.ttl'] = p['ip.ttl'];
  q['ip.dscp'] = p['ip.dscp'];
  q['ip.ecn'] = p['ip.ecn'];
  q['ip.frag'] = p['ip.frag'];
  q['ip4.src'] = p['ip4.src'];
  q['ip4.dst'] = p['ip4.dst'];
  q['ip6.src'] = p['ip6.src'];
  q['ip6.dst'] = p['ip6.dst'];
  q['ip6.label'] = p['ip6.label'];
  q['icmp4.type'] = p['icmp4.type'];
  q['icmp4.code'] = p['icmp4.code'];
  q['icmp6.type'] = p['icmp6.type'];
  q['icmp6.code'] = p['icmp6.code'];
  q['icmp.id'] = p['icmp.id'];
  q['nd.target'] = p['nd.target'];
  q['nd.sll'] = p['nd.sll'];
  q['nd.tll'] = p['nd.tll'];
  q['tcp.src'] = p['tcp.src'];
  q['tcp.dst'] = p['tcp.dst'];
  q['tcp.flags'] = p['tcp.flags'];
  q['udp.src'] = p['udp.src'];
  q['udp.dst'] = p['udp.dst'];
  q['sctp.src'] = p['sctp.src'];
  q['sctp.dst'] = p['sctp.dst'];
  q.inner = p.inner;
  return q;
}

/**
 * The public form: a plain object with the fields present, in header order
 * (then `inner`). Other packets are returned as they are.
 *
 * @example publicPacket(new SimPacket(tcpPacket(spec))) // toEqual(tcpPacket(spec))
 */
export function publicPacket(p: Packet): Packet {
  if (!(p instanceof SimPacket)) return p;
  // Field by field in FIELD_ORDER (named accesses: a loop over names would be megamorphic).
  const out: Record<string, unknown> = {};
  if (p['eth.src'] !== undefined) out['eth.src'] = p['eth.src'];
  if (p['eth.dst'] !== undefined) out['eth.dst'] = p['eth.dst'];
  if (p['eth.type'] !== undefined) out['eth.type'] = p['eth.type'];
  if (p['vlan.tci'] !== undefined) out['vlan.tci'] = p['vlan.tci'];
  if (p['arp.op'] !== undefined) out['arp.op'] = p['arp.op'];
  if (p['arp.spa'] !== undefined) out['arp.spa'] = p['arp.spa'];
  if (p['arp.tpa'] !== undefined) out['arp.tpa'] = p['arp.tpa'];
  if (p['arp.sha'] !== undefined) out['arp.sha'] = p['arp.sha'];
  if (p['arp.tha'] !== undefined) out['arp.tha'] = p['arp.tha'];
  if (p['ip.proto'] !== undefined) out['ip.proto'] = p['ip.proto'];
  if (p['ip.ttl'] !== undefined) out['ip.ttl'] = p['ip.ttl'];
  if (p['ip.dscp'] !== undefined) out['ip.dscp'] = p['ip.dscp'];
  if (p['ip.ecn'] !== undefined) out['ip.ecn'] = p['ip.ecn'];
  if (p['ip.frag'] !== undefined) out['ip.frag'] = p['ip.frag'];
  if (p['ip4.src'] !== undefined) out['ip4.src'] = p['ip4.src'];
  if (p['ip4.dst'] !== undefined) out['ip4.dst'] = p['ip4.dst'];
  if (p['ip6.src'] !== undefined) out['ip6.src'] = p['ip6.src'];
  if (p['ip6.dst'] !== undefined) out['ip6.dst'] = p['ip6.dst'];
  if (p['ip6.label'] !== undefined) out['ip6.label'] = p['ip6.label'];
  if (p['icmp4.type'] !== undefined) out['icmp4.type'] = p['icmp4.type'];
  if (p['icmp4.code'] !== undefined) out['icmp4.code'] = p['icmp4.code'];
  if (p['icmp6.type'] !== undefined) out['icmp6.type'] = p['icmp6.type'];
  if (p['icmp6.code'] !== undefined) out['icmp6.code'] = p['icmp6.code'];
  if (p['icmp.id'] !== undefined) out['icmp.id'] = p['icmp.id'];
  if (p['nd.target'] !== undefined) out['nd.target'] = p['nd.target'];
  if (p['nd.sll'] !== undefined) out['nd.sll'] = p['nd.sll'];
  if (p['nd.tll'] !== undefined) out['nd.tll'] = p['nd.tll'];
  if (p['tcp.src'] !== undefined) out['tcp.src'] = p['tcp.src'];
  if (p['tcp.dst'] !== undefined) out['tcp.dst'] = p['tcp.dst'];
  if (p['tcp.flags'] !== undefined) out['tcp.flags'] = p['tcp.flags'];
  if (p['udp.src'] !== undefined) out['udp.src'] = p['udp.src'];
  if (p['udp.dst'] !== undefined) out['udp.dst'] = p['udp.dst'];
  if (p['sctp.src'] !== undefined) out['sctp.src'] = p['sctp.src'];
  if (p['sctp.dst'] !== undefined) out['sctp.dst'] = p['sctp.dst'];
  if (p.inner !== undefined) out.inner = p.inner;
  return out as unknown as Packet;
}
