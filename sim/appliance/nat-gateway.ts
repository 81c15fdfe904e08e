/**
 * The NAT appliance: a Kube-OVN VPC NAT gateway pod modelled after OVN has
 * handed it a packet (or before it hands one to OVN). The pod forwards
 * between eth0 (its port on the VPC subnet, an OVN logical switch port) and
 * net1 (in Kube-OVN a Multus macvlan attachment on the external network;
 * here the outside network, not an OVN port), applying the nat table's
 * rules (iptables.ts) as Linux does: PREROUTING's DNAT_FILTER (DNAT), the
 * routing decision (the VPC's CIDRs back through eth0 via the subnet's
 * gateway, the own subnet on link, the rest out net1), POSTROUTING's
 * SNAT_FILTER (SNAT, first match). Conntrack makes the reply of a
 * translated connection the exact reverse, so the reply leg is not
 * modelled again. IPv4 only, as the iptables rules are.
 *
 * Every step is a trace stage whose datapath names the appliance, so a
 * trace says where OVN's part ends and the model takes over.
 */
import { containsIP, formatIPv4, parseCIDR, parseIP, parseIPv4, parseMAC } from '../../model/addr/index.ts';
import {
  dstPort,
  isIcmpEcho,
  isIPv4,
  l4ProtoOf,
  type Packet,
  withFields,
  withIPs,
  withPorts,
} from '../../model/packet/index.ts';
import { fieldChange, type FieldChange, type TraceStage } from '../trace.ts';
import { EXTERNAL_INTERFACE, type NatGatewayRules, type NatRule, natRules, VPC_INTERFACE } from './iptables.ts';

/** One gateway pod, as the probes see it. */
export interface NatAppliance {
  /** The VpcNatGateway's name. */
  readonly name: string;
  /** Its pod's logical switch port (`vpc-nat-gw-<name>-0.<ns>`), its eth0. */
  readonly port: string;
  readonly mac: string;
  readonly lanIp: string;
  /** The gateway's subnet's CIDR and gateway (the router port eth0's routes go through) and that port's MAC. */
  readonly subnetCidr: string;
  readonly routerMac: string;
  /** The router port's address on the subnet (the VPC routes' next hop in the pod: subnet-route-add). */
  readonly routerIp: string;
  /** The VPC's other subnets' IPv4 CIDRs (subnet-route-add: via the subnet's gateway on eth0). */
  readonly vpcCidrs: readonly string[];
  /** MACs of the addresses on the gateway's own subnet (what ARP on eth0 finds). */
  readonly neighbours: ReadonlyMap<string, string>;
  readonly rules: NatGatewayRules;
}

export type ApplianceResult =
  /** Out of net1 to the outside network; `replies`: the outside can answer (the source is one of the gateway's EIPs). */
  | {
      readonly kind: 'outside';
      readonly packet: Packet;
      readonly replies: boolean;
      readonly stages: TraceStage[];
      readonly reason?: string;
    }
  /** Out of eth0 into OVN at the gateway pod's port. */
  | { readonly kind: 'lan'; readonly packet: Packet; readonly stages: TraceStage[] }
  /** For the gateway itself (an EIP nothing DNATs): a ping is answered by its kernel, the rest refused. */
  | { readonly kind: 'local'; readonly answered: boolean; readonly stages: TraceStage[]; readonly reason: string }
  | { readonly kind: 'dropped'; readonly reason: string; readonly stages: TraceStage[] };

const ip4 = (p: Packet, f: 'ip4.src' | 'ip4.dst') => formatIPv4(p[f] ?? 0);
const inCidr = (cidr: string, ip: string) => containsIP(parseCIDR(cidr, { allowBare: true }), parseIP(ip));

function matches(r: NatRule, p: Packet, out: string | undefined, inIf: string, origDst: string): boolean {
  if (r.src !== undefined && !inCidr(r.src, ip4(p, 'ip4.src'))) return false;
  if (r.dst !== undefined && !inCidr(r.dst, ip4(p, 'ip4.dst'))) return false;
  if (r.proto !== undefined && l4ProtoOf(p) !== r.proto) return false;
  if (r.dport !== undefined && dstPort(p) !== r.dport) return false;
  if (r.out !== undefined && r.out !== out) return false;
  if (r.hairpinOf !== undefined && (inIf !== VPC_INTERFACE || origDst !== r.hairpinOf)) return false;
  return true;
}

function ruleText(r: NatRule): string {
  const m = [
    r.src && `-s ${r.src}`,
    r.dst && `-d ${r.dst}`,
    r.proto && `-p ${r.proto}`,
    r.dport !== undefined && `--dport ${r.dport}`,
    r.out && `-o ${r.out}`,
    r.hairpinOf && `-m mark --mark 0x1/0x1 --ctstate DNAT --ctorigdst ${r.hairpinOf}`,
  ].filter(Boolean);
  const to =
    r.target === 'DNAT' ? `--to-destination ${r.toIp}${r.toPort ? `:${r.toPort}` : ''}` : `--to-source ${r.toIp}`;
  return `-A ${r.chain} ${m.join(' ')} -j ${r.target} ${to}`.replace(/ +/g, ' ');
}

class Tracer {
  readonly stages: TraceStage[] = [];
  constructor(
    private readonly app: NatAppliance,
    private readonly inIf: string,
  ) {}
  add(
    stage: string,
    action: string,
    extra: { rule?: NatRule; changes?: FieldChange[]; note?: string; out?: string } = {},
  ) {
    this.stages.push({
      datapath: `${this.app.name} (NAT gateway pod, appliance model)`,
      pipeline: stage.startsWith('nat POSTROUTING') || stage === 'output' ? 'egress' : 'ingress',
      stage,
      inport: this.inIf,
      ...(extra.out !== undefined ? { outport: extra.out } : {}),
      ...(extra.rule !== undefined
        ? {
            rule: {
              kind: 'nat' as const,
              priority: 0,
              key: extra.rule.origin,
              name: extra.rule.origin,
              match: ruleText(extra.rule),
            },
          }
        : {}),
      action,
      ...(extra.changes !== undefined ? { changes: extra.changes } : {}),
      ...(extra.note !== undefined ? { note: extra.note } : {}),
      depth: 0,
    });
  }
}

/** The first rule of `chains` (in chain order) that matches. */
function firstMatch(
  rules: readonly NatRule[],
  chains: readonly string[],
  p: Packet,
  out: string | undefined,
  inIf: string,
  origDst: string,
) {
  for (const c of chains) for (const r of rules) if (r.chain === c && matches(r, p, out, inIf, origDst)) return r;
  return undefined;
}

/** DNAT (PREROUTING), then route, then SNAT (POSTROUTING): a packet that came in on `inIf`. */
function forward(app: NatAppliance, p: Packet, inIf: string, t: Tracer): ApplianceResult {
  const rules = natRules(app.rules);
  const origDst = ip4(p, 'ip4.dst');
  let q = p;
  const dnat = firstMatch(rules, ['EXCLUSIVE_DNAT', 'SHARED_DNAT'], q, undefined, inIf, origDst);
  if (dnat !== undefined) {
    const before = q;
    q = withIPs(q, q['ip4.src'], parseIPv4(dnat.toIp));
    if (dnat.toPort !== undefined) q = withPorts(q, undefined, dnat.toPort);
    t.add('nat PREROUTING DNAT_FILTER', 'DNAT', { rule: dnat, changes: changed(before, q) });
  } else t.add('nat PREROUTING DNAT_FILTER', 'next', { note: 'no DNAT rule matches' });
  const dst = ip4(q, 'ip4.dst');
  if (app.rules.eips.some((e) => e.ip === dst) || dst === app.lanIp) {
    const echo = isIcmpEcho(q) === 'request';
    const reason = echo
      ? `${dst} is the NAT gateway ${app.name}'s own address: its kernel answers the ping`
      : `${dst} is the NAT gateway ${app.name}'s own address and nothing DNATs this ${l4ProtoOf(q) ?? 'packet'}: refused`;
    t.add('routing', echo ? 'local (answered)' : 'local (refused)', { note: reason });
    return { kind: 'local', answered: echo, stages: t.stages, reason };
  }
  const onLink = inCidr(app.subnetCidr, dst);
  const out = onLink || app.vpcCidrs.some((c) => inCidr(c, dst)) ? VPC_INTERFACE : EXTERNAL_INTERFACE;
  t.add('routing', `out ${out}`, {
    out,
    note:
      out === VPC_INTERFACE
        ? `${dst}: a VPC address (${onLink ? 'on link' : "via the subnet's gateway"})`
        : `${dst}: default route, the external network`,
  });
  const snat = firstMatch(rules, ['EXCLUSIVE_SNAT', 'SHARED_SNAT', 'HAIRPIN_SNAT'], q, out, inIf, origDst);
  if (snat !== undefined) {
    const before = q;
    q = withIPs(q, parseIPv4(snat.toIp), q['ip4.dst']);
    t.add('nat POSTROUTING SNAT_FILTER', 'SNAT', { rule: snat, changes: changed(before, q), out });
  } else t.add('nat POSTROUTING SNAT_FILTER', 'next', { note: 'no SNAT rule matches', out });
  q = withFields(q, { 'ip.ttl': (q['ip.ttl'] ?? 64) - 1 });
  if (out === EXTERNAL_INTERFACE) {
    const src = ip4(q, 'ip4.src');
    const replies = app.rules.eips.some((e) => e.ip === src);
    const reason = replies
      ? undefined
      : `the outside has no route back to ${src}: it left ${app.name} untranslated (no SNAT or FIP rule matched)`;
    t.add('output', `to the outside network`, {
      out,
      note: reason ?? `the outside answers ${src}, an EIP on ${EXTERNAL_INTERFACE}`,
    });
    return { kind: 'outside', packet: q, replies, stages: t.stages, ...(reason ? { reason } : {}) };
  }
  const mac = onLink ? app.neighbours.get(dst) : app.routerMac;
  if (mac === undefined) {
    const reason = `${app.name}: no ARP answer for ${dst} on ${VPC_INTERFACE}`;
    t.add('output', 'drop', { out, note: reason });
    return { kind: 'dropped', reason, stages: t.stages };
  }
  q = withFields(q, { 'eth.src': parseMAC(app.mac), 'eth.dst': parseMAC(mac) });
  t.add('output', `into OVN at ${app.port}`, { out, note: `OVN's pipeline takes the packet from ${app.port} on` });
  return { kind: 'lan', packet: q, stages: t.stages };
}

function changed(a: Packet, b: Packet): FieldChange[] {
  const fields = ['ip4.src', 'ip4.dst', 'tcp.dst', 'udp.dst'] as const;
  return fields.filter((f) => a[f] !== b[f]).map((f) => fieldChange(f, a[f], b[f]));
}

/**
 * A packet OVN delivered to the gateway pod's port (eth0), through the pod.
 *
 * @example fromLan(app, delivered).kind // 'outside'
 */
export function fromLan(app: NatAppliance, p: Packet): ApplianceResult {
  const t = new Tracer(app, VPC_INTERFACE);
  t.add('handoff', 'received', {
    note: `OVN's part ends at ${app.port}: the NAT gateway pod ${app.name} is modelled from here (nat-gateway.sh's iptables rules)`,
  });
  if (!isIPv4(p)) return { kind: 'dropped', reason: `${app.name}: only IPv4 is modelled`, stages: t.stages };
  return forward(app, p, VPC_INTERFACE, t);
}

/**
 * A packet from the outside network to an address on net1, through the pod.
 *
 * @example fromOutside(app, toEip).kind // 'lan'
 */
export function fromOutside(app: NatAppliance, p: Packet): ApplianceResult {
  const t = new Tracer(app, EXTERNAL_INTERFACE);
  t.add('handoff', 'received', {
    note: `from the outside network on ${EXTERNAL_INTERFACE}: the NAT gateway pod ${app.name} is modelled until it hands the packet to OVN at ${app.port}`,
  });
  if (!isIPv4(p)) return { kind: 'dropped', reason: `${app.name}: only IPv4 is modelled`, stages: t.stages };
  return forward(app, p, EXTERNAL_INTERFACE, t);
}
