/**
 * Router admission and IP input as northd 23.03 builds them
 * (build_adm_ctrl_flows_for_lrouter*, build_lrouter_ipv4_ip_input,
 * build_ipv6_input_flows_for_lrouter_port,
 * build_misc_local_traffic_drop_flows_for_lrouter, NAT/LB ARP flows):
 *
 * - lr_in_admission: only frames to the inport's MAC (or multicast) enter;
 *   on a distributed gateway port only where it is resident;
 * - lr_in_ip_input: ARP/NS for the router's addresses, NAT external IPs and
 *   reachable LB VIPs are answered; pings to router addresses are answered
 *   (the reply is routed back like any packet); other traffic to router
 *   addresses drops (unless it is a SNAT/LB address, handled by NAT later);
 *   TTL 0/1 gets ICMP time exceeded back out of the inport.
 */
import { inNetwork, ipKey, linkLocalOf } from '../compile/addresses.ts';
import type { RouterDp, RouterPortInfo } from '../compile/types.ts';
import { solicitedNode } from '../../model/packet/build.ts';
import {
  ICMP4_ECHO_REPLY,
  ICMP4_TIME_EXCEEDED,
  ICMP6_ECHO_REPLY,
  ICMP6_TIME_EXCEEDED,
} from '../../model/packet/fields.ts';
import {
  withFields,
  ipDst,
  isArp,
  isEthBcast,
  isEthMcast,
  isIPv4,
  isIPv6,
  isIcmpEcho,
  isMcastMac,
  isNd,
  isNdNs,
  type Packet,
} from '../../model/packet/packet.ts';
import type { TraceRule } from '../trace.ts';
import { FLAG_LOOPBACK } from './context.ts';
import { arpReplyTo, icmpErrorFor, ndNaTo, rejectReplyFor } from './generate.ts';
import type { GeneratedKind, StageRun } from './run.ts';

type S = StageRun<RouterDp>;

const builtin = (priority: number, match: string): TraceRule => ({ kind: 'builtin', priority, match });

export function routerPort(s: S, name: string): RouterPortInfo | undefined {
  const p = s.port(name);
  return p?.kind === 'lrp' ? p : undefined;
}

export const resident = (s: S, port: string): boolean =>
  (s.job.redirected === true && port.startsWith('cr-')) || (s.net.options.isChassisResident ?? (() => true))(port);

/** lr_in_admission. */
export function admission(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  if (isMcastMac(p['eth.src']) || (p['vlan.tci'] ?? 0) & 0x1000)
    return s.drop('multicast source MAC or VLAN tag', builtin(100, 'vlan.present || eth.src[40]'));
  const port = routerPort(s, ctx.inport);
  if (!dp.enabled || port === undefined || !port.enabled)
    return s.drop(`router ${dp.name} or port ${ctx.inport} is disabled`);
  ctx.rt.inportMac = port.mac;
  ctx.rt.egressLoopback = s.job.egressLoopback === true;
  if (isEthMcast(p)) return 'next';
  if (p['eth.dst'] === port.mac && (!port.isDgp || resident(s, port.crName!))) return 'next';
  if (port.isDgp) {
    const nat = dp.nats.find((n) => n.distributed && n.externalMac === p['eth.dst'] && n.gatewayPort === port.name);
    if (nat && resident(s, nat.nat.logicalPort!)) return 'next';
  }
  return s.drop(`eth.dst is not the MAC of ${port.name}`, builtin(0, '1'));
}

const ownsV6 = (p: RouterPortInfo, ip: bigint | undefined): boolean =>
  ip !== undefined && (ip === linkLocalOf(p.mac) || p.networks.some((n) => n.family === 6 && n.ip === ip));

function reply(s: S, packet: Packet, kind: GeneratedKind, rule: TraceRule): 'stop' {
  const before = s.ctx.packet;
  s.ctx.packet = packet;
  s.ctx.outport = s.ctx.inport;
  s.ctx.setFlag(FLAG_LOOPBACK);
  if (s.tracing) s.record({ rule, action: `${kind}; outport = inport; output`, before });
  s.spawn({
    dp: s.dp,
    pipeline: 'egress',
    inport: s.ctx.inport,
    outport: s.ctx.inport,
    packet,
    carry: s.ctx.carry(),
    generated: kind,
    depth: s.job.depth,
  });
  return 'stop';
}

/** ARP requests the router answers (priority 90/92). */
function arpInput(s: S, port: RouterPortInfo): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  if (p['arp.op'] !== 1) return s.drop('ARP other than a request for a router address', builtin(85, 'arp || nd'));
  const tpa = p['arp.tpa'] ?? 0;
  const spa = p['arp.spa'] ?? 0;
  const own = port.networks.find((n) => n.family === 4 && n.ip === tpa);
  if (own && inNetwork(own, spa)) {
    return reply(
      s,
      arpReplyTo(p, port.mac, tpa),
      'arp-reply',
      builtin(90, `inport == "${port.name}" && arp.tpa == router IP && arp.spa in subnet`),
    );
  }
  const nat = dp.nats.find((n) => n.externalIp === tpa);
  if (nat !== undefined) {
    // On the NAT's own gateway port: answered only where it is resident (92), else dropped (91).
    const onGw = port.isDgp && nat.gatewayPort === port.name;
    const mac = onGw && nat.distributed ? nat.externalMac! : port.mac;
    const who = onGw ? (nat.distributed ? nat.nat.logicalPort! : port.crName!) : undefined;
    if (who !== undefined && !resident(s, who))
      return s.drop('NAT address answered only where its gateway is resident', {
        kind: 'nat',
        key: nat.key,
        priority: 91,
      });
    return reply(s, arpReplyTo(p, mac, tpa), 'arp-reply', {
      kind: 'nat',
      key: nat.key,
      priority: onGw ? 92 : 90,
      match: 'arp.op == 1 && arp.tpa == external_ip',
    });
  }
  if (dp.lbReachableIps.has(ipKey(tpa)) && (!port.isDgp || resident(s, port.crName!))) {
    return reply(s, arpReplyTo(p, port.mac, tpa), 'arp-reply', builtin(90, 'arp.op == 1 && arp.tpa == LB VIP'));
  }
  return s.drop('ARP request not for a router address', builtin(85, 'arp || nd'));
}

function ndInput(s: S, port: RouterPortInfo): 'next' | 'stop' {
  const p = s.ctx.packet;
  const target = p['nd.target'];
  if (isNdNs(p) && target !== undefined && ownsV6(port, target)) {
    const dst = p['ip6.dst'];
    if (dst === target || dst === solicitedNode(target)) {
      return reply(s, ndNaTo(p, port.mac, target), 'nd-na', builtin(90, 'nd_ns && nd.target == router address'));
    }
  }
  const nat = target === undefined ? undefined : s.dp.nats.find((n) => n.externalIp === target);
  if (isNdNs(p) && nat !== undefined)
    return reply(s, ndNaTo(p, port.mac, target!), 'nd-na', { kind: 'nat', key: nat.key, priority: 90 });
  return s.drop('neighbour discovery not for a router address', builtin(85, 'arp || nd'));
}

/**
 * The SNAT entry whose external IP is the packet's source, arriving on that
 * entry's distributed gateway port: northd 23.03 build_lrouter_ingress_flow()
 * adds `inport == <dgp> && ip4.src|ip6.src == <external_ip>` → `next;` at
 * priority 120, which skips every other check of lr_in_ip_input (the TTL
 * check too): the router's own SNAT traffic coming back through the egress
 * loopback.
 */
function snatSourceOnGateway(s: S, port: RouterPortInfo): RouterDp['nats'][number] | undefined {
  if (!port.isDgp) return undefined;
  const p = s.ctx.packet;
  const src = isIPv4(p) ? p['ip4.src'] : isIPv6(p) ? p['ip6.src'] : undefined;
  if (src === undefined) return undefined;
  return s.dp.nats.find((n) => n.nat.type === 'snat' && n.externalIp === src && n.gatewayPort === port.name);
}

/** Source/destination checks of priority 100. */
function badAddress(s: S): 'stop' | undefined {
  const p = s.ctx.packet;
  if (!isIPv4(p)) return undefined;
  const src = p['ip4.src'] ?? 0;
  const dst = p['ip4.dst'] ?? 0;
  const mart =
    src >>> 28 === 0xe ||
    src === 0xffffffff ||
    src >>> 24 === 127 ||
    dst >>> 24 === 127 ||
    src >>> 24 === 0 ||
    dst >>> 24 === 0;
  if (mart)
    return s.drop(
      'martian address (multicast/broadcast/loopback/zero)',
      builtin(100, 'ip4.src_mcast || ... 127.0.0.0/8 ... 0.0.0.0/8'),
    );
  if (s.ctx.rt.egressLoopback) return undefined;
  const own = s.dp.ownV4OrBroadcast.has(src);
  if (own) return s.drop('source is a router address', builtin(100, 'ip4.src == {router addresses} && reg9[0] == 0'));
  return undefined;
}

function echoReply(s: S): 'next' | undefined {
  const { ctx } = s;
  const p = ctx.packet;
  if (isIcmpEcho(p) !== 'request' || (p['icmp4.code'] ?? p['icmp6.code']) !== 0) return undefined;
  const dst = ipDst(p);
  const own = isIPv4(p) ? s.dp.ownV4.has(dst as number) : s.dp.ownV6.has(dst as bigint);
  if (!own) return undefined;
  const before = p;
  ctx.packet = isIPv4(p)
    ? withFields(p, {
        'ip4.src': p['ip4.dst']!,
        'ip4.dst': p['ip4.src']!,
        'ip.ttl': 255,
        'icmp4.type': ICMP4_ECHO_REPLY,
      })
    : withFields(p, {
        'ip6.src': p['ip6.dst']!,
        'ip6.dst': p['ip6.src']!,
        'ip.ttl': 255,
        'icmp6.type': ICMP6_ECHO_REPLY,
      });
  ctx.setFlag(FLAG_LOOPBACK);
  ctx.generated = 'icmp-echo-reply';
  if (s.tracing)
    s.record({
      rule: builtin(90, 'ip.dst == router address && icmp echo request'),
      action: 'echo reply (routed back)',
      before,
    });
  return 'next';
}

function ttlExpired(s: S, port: RouterPortInfo): 'stop' | undefined {
  const p = s.ctx.packet;
  const ttl = p['ip.ttl'] ?? 64;
  if (ttl > 1 || ((p['ip.frag'] ?? 0) & 2) !== 0) return undefined;
  const dst = ipDst(p);
  const mcast = isIPv4(p) ? (dst as number) >>> 28 === 0xe : (dst as bigint) >> 120n === 0xffn;
  if (mcast) return s.drop('TTL expired (multicast: no ICMP)', builtin(32, 'ip.ttl == {0, 1} && mcast'));
  const v4 = isIPv4(p);
  const net = port.networks.find((n) => n.family === (v4 ? 4 : 6) && (v4 || inNetwork(n, p['ip6.src'] ?? 0n)));
  if (net === undefined) return s.drop('TTL expired', builtin(30, 'ip.ttl == {0, 1}'));
  const err = icmpErrorFor(p, {
    type: v4 ? ICMP4_TIME_EXCEEDED : ICMP6_TIME_EXCEEDED,
    code: 0,
    ttl: 254,
    src: port.isDgp ? (ipDst(p) as number | bigint) : net.ip,
  });
  s.run.drops.push({ datapath: s.dp.name, stage: s.stage, reason: 'TTL expired (ICMP time exceeded sent back)' });
  return reply(s, err, 'icmp-error', builtin(31, `inport == "${port.name}" && ip.ttl == {0, 1}`));
}

/** Non-gateway routers answer TCP/UDP/SCTP to their own addresses with RST / port unreachable. */
function toRouterAddress(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  const dst = ipDst(p);
  // (An IPv4 destination can only equal an IPv4 network address, an IPv6 one an IPv6 address or link-local.)
  const own = isIPv4(p) ? dp.ownV4.has(dst as number) : dp.ownV6.has(dst as bigint);
  if (!own || (dst !== undefined && dp.snatOrLbRouterIps.has(ipKey(dst)))) return 'next';
  if (!dp.isGateway && dp.dgps.length === 0) {
    // TCP: RST; UDP: port unreachable; SCTP: ABORT (80); anything else: protocol unreachable (70).
    const l4 = p['tcp.src'] !== undefined || p['udp.src'] !== undefined || p['sctp.src'] !== undefined;
    const proto = isIPv4(p) ? { type: 3, code: 2 } : { type: 1, code: 3 };
    const { packet, kind } = l4 ? rejectReplyFor(p) : { packet: icmpErrorFor(p, proto), kind: 'icmp-error' as const };
    const before = p;
    ctx.packet = packet;
    ctx.generated = kind;
    s.run.drops.push({ datapath: dp.name, stage: s.stage, reason: `to a router address (${kind} sent back)` });
    if (s.tracing)
      s.record({ rule: builtin(l4 ? 80 : 70, 'ip.dst == router address'), action: `${kind} (routed back)`, before });
    return 'next';
  }
  return s.drop('to a router address', builtin(60, 'ip.dst == {router addresses}'));
}

/** lr_in_ip_input. */
export function ipInput(s: S): 'next' | 'stop' {
  const port = routerPort(s, s.ctx.inport)!;
  const p = s.ctx.packet;
  if (isArp(p)) return arpInput(s, port);
  const snat = snatSourceOnGateway(s, port);
  if (snat !== undefined) {
    if (s.tracing)
      s.record({
        rule: { kind: 'nat', key: snat.key, priority: 120, match: 'inport == gateway port && ip.src == external_ip' },
        action: 'next',
        before: p,
      });
    return 'next';
  }
  if (isNd(p)) return ndInput(s, port);
  if (!isIPv4(p) && !isIPv6(p)) return 'next';
  const bad = badAddress(s);
  if (bad) return bad;
  const echo = echoReply(s);
  if (echo) return echo;
  const dst = ipDst(p);
  const mcast = isIPv4(p) ? (dst as number) >>> 28 === 0xe : (dst as bigint) >> 120n === 0xffn;
  if (mcast) return s.drop('multicast (no relay)', builtin(82, 'ip4.mcast || ip6.mcast'));
  const toRouter = toRouterAddress(s);
  if (toRouter === 'stop' || s.ctx.generated) return toRouter;
  if (isEthBcast(p)) return s.drop('Ethernet broadcast', builtin(50, 'eth.bcast'));
  return ttlExpired(s, port) ?? 'next';
}
