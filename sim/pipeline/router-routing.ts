/**
 * Routing stages as northd 23.03 builds them: lr_in_ip_routing_pre (route
 * table of the inport), lr_in_ip_routing (+ _ecmp), lr_in_policy
 * (+ _ecmp), lr_in_arp_resolve, lr_in_gw_redirect and lr_in_arp_request.
 *
 * Routing decrements TTL, sets the next hop, the source router address,
 * eth.src and outport; policies then see that packet and may allow, drop, or
 * reroute it (overriding the route); ARP resolution fills eth.dst from known
 * addresses or, failing that, the router asks with ARP/ND and the packet
 * waits (it is not forwarded in this simulation step, as in OVN).
 */
import { formatIPv4, formatIPv6 } from '../../model/addr/index.ts';
import { ipKey, linkLocalOf } from '../compile/addresses.ts';
import { candidateAcls } from '../compile/acl-index.ts';
import { lookupRoute } from '../compile/routes.ts';
import type { RouteEntry, RouteTarget, RouterDp } from '../compile/types.ts';
import { copyPacket } from '../../model/packet/canonical.ts';
import { familyOf, ipDst, ipSrc, isIP, isIPv4, isNdOrMld, type Packet, withFields } from '../../model/packet/packet.ts';
import type { TraceRule } from '../trace.ts';
import { FLAG_LOOPBACK } from './context.ts';
import { arpRequestFor, ndNsFor } from './generate.ts';
import { natResident } from './router-nat.ts';
import { resident, routerPort } from './router-input.ts';
import type { StageRun } from './run.ts';

type S = StageRun<RouterDp>;

const builtin = (priority: number, match: string): TraceRule => ({ kind: 'builtin', priority, match });

/** lr_in_ip_routing_pre. */
export function routingPre(s: S): 'next' | 'stop' {
  s.ctx.rt.routeTable = routerPort(s, s.ctx.inport)?.routeTable ?? '';
  return 'next';
}

/**
 * Route to `t`: next hop, source address, outport, and the packet from `from` with the port's MAC as source (and
 * `ttl`, when given).
 */
function applyTarget(s: S, t: RouteTarget, dst: number | bigint, from: Packet, ttl?: number): void {
  const { ctx } = s;
  ctx.rt.nexthop = t.nexthop ?? dst;
  ctx.rt.srcIp = t.srcIp;
  ctx.outport = t.outport;
  const q = copyPacket(from);
  if (ttl !== undefined) q['ip.ttl'] = ttl;
  q['eth.src'] = t.mac;
  ctx.packet = q;
  ctx.setFlag(FLAG_LOOPBACK);
}

function isMcast(p: Packet): boolean {
  const dst = ipDst(p);
  return isIPv4(p) ? (dst as number) >>> 28 === 0xe : ((dst as bigint) ?? 0n) >> 120n === 0xffn;
}

/** lr_in_ip_routing and lr_in_ip_routing_ecmp. */
export function routing(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  if (!isIP(p)) return s.drop('not IP', builtin(0, '1'));
  if (isNdOrMld(p) && (p['icmp6.type'] === 133 || p['icmp6.type'] === 134))
    return s.drop('router solicitation/advertisement', builtin(10550, 'nd_rs || nd_ra'));
  if (isMcast(p)) return s.drop('multicast (no relay)', builtin(10450, 'ip4.mcast || ip6.mcast'));
  const before = p;
  const dst = ipDst(p)!;
  const ttl = (p['ip.ttl'] ?? 1) - 1;
  const fam = familyOf(p)!;
  // `ip.ttl--` is OVS's dec_ttl: a TTL of 0 or 1 is not decremented and the packet goes to the controller
  // (OFPR_INVALID_TTL), which ignores it. lr_in_ip_input answers those first, except the router's own SNAT
  // traffic back on its gateway port (router-input.ts snatSourceOnGateway).
  const expired = (p['ip.ttl'] ?? 64) <= 1;
  const drop = (rule: TraceRule) => s.drop('TTL 0 or 1 at ip.ttl-- (OVS dec_ttl forwards nothing)', rule);
  if (fam === 6 && (dst as bigint) >> 64n === 0xfe80000000000000n) {
    const ll = builtin(194, 'inport == P && ip6.dst == fe80::/64');
    if (expired) return drop(ll);
    const port = routerPort(s, ctx.inport)!;
    applyTarget(s, { outport: port.name, srcIp: linkLocalOf(port.mac), mac: port.mac }, dst, p, ttl);
    if (s.tracing) s.record({ rule: ll, action: `link-local: out "${port.name}"`, before });
    return 'next';
  }
  const route = lookupRoute(dp.routes, fam, ipSrc(p)!, dst, ctx.rt.routeTable);
  if (route === undefined) return s.drop('no route', builtin(0, '1'));
  if (route.kind === 'discard') return s.drop('discard route', routeRule(route));
  if (expired) return drop(routeRule(route));
  // The selector sees the packet with its TTL decremented (before the MAC rewrite).
  const i =
    route.targets.length > 1
      ? s.run.select('ecmp-route', route.key, route.targets.length, withFields(p, { 'ip.ttl': ttl }), (m) =>
          memberName(dp.name, route.targets[m]!, fam),
        )
      : 0;
  applyTarget(s, route.targets[i]!, dst, p, ttl);
  ctx.rt.decided = 'route';
  const ecmp = route.targets.length > 1 ? ` (ECMP member ${i + 1}/${route.targets.length})` : '';
  if (s.tracing)
    s.record({
      rule: routeRule(route),
      action: `ip.ttl--; next hop ${formatHop(ctx.rt.nexthop!)}; outport = "${ctx.outport}"${ecmp}`,
      before,
    });
  return 'next';
}

const routeRule = (route: RouteEntry): TraceRule => ({
  kind: 'route',
  key: route.key,
  priority: route.priority,
  match: route.text,
});

/**
 * An ECMP member as `router|next hop|outport`: what ovn-trace's lr_in_ip_routing_ecmp / lr_in_policy_ecmp flow
 * loads into reg0/xxreg0 and outport for the member it took, so the two can be matched member for member.
 */
function memberName(router: string, t: RouteTarget, fam: 4 | 6): string {
  return `${router}|${t.nexthop === undefined ? `ip${fam}.dst` : formatHop(t.nexthop)}|${t.outport}`;
}

function formatHop(ip: number | bigint): string {
  return typeof ip === 'number' ? formatIPv4(ip) : formatIPv6(ip);
}

/** lr_in_policy and lr_in_policy_ecmp. */
export function policy(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const index = dp.policyIndex;
  const ranks = candidateAcls(index, ctx.inport, ctx.outport, ctx.packet, s.aclScratch);
  for (let k = 0; k < ranks.length; k++) {
    const r = index.rules[ranks[k]!]!;
    if (!r.test(ctx)) continue;
    const rule: TraceRule = { kind: 'policy', key: r.key, priority: r.priority, match: r.matchText };
    const action = r.policy.action;
    if (action === 'drop') return s.drop('router policy drop', rule);
    if (action === 'allow') {
      if (s.tracing) s.record({ rule, action: 'allow' });
      return 'next';
    }
    const before = ctx.packet;
    const i =
      r.targets.length > 1
        ? s.run.select('ecmp-policy', r.key, r.targets.length, ctx.packet, (m) =>
            memberName(dp.name, r.targets[m]!, isIPv4(ctx.packet) ? 4 : 6),
          )
        : 0;
    applyTarget(s, r.targets[i]!, ipDst(ctx.packet)!, ctx.packet);
    ctx.rt.decided = 'policy';
    const ecmp = r.targets.length > 1 ? ` (ECMP member ${i + 1}/${r.targets.length})` : '';
    if (s.tracing)
      s.record({
        rule,
        action: `reroute via ${formatHop(ctx.rt.nexthop!)}; outport = "${ctx.outport}"${ecmp}`,
        before,
      });
    return 'next';
  }
  return 'next';
}

/** lr_in_arp_resolve. */
export function arpResolve(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  if (isMcast(p)) return 'next';
  const dst = ipDst(p)!;
  const out = ctx.outport;
  const gwNat =
    dp.nats.length === 0 || ctx.inport !== out
      ? undefined
      : dp.nats.find((n) => n.gatewayPort === out && n.externalIp === dst);
  if (gwNat !== undefined && !dp.isGateway)
    return s.drop('to a NAT address of the gateway port it came in on', { kind: 'nat', key: gwNat.key, priority: 150 });
  const hop = ctx.rt.nexthop;
  const before = p;
  const known = hop === undefined ? undefined : dp.arpResolve.get(out)?.get(ipKey(hop));
  if (known !== undefined) {
    const q = copyPacket(p);
    q['eth.dst'] = known;
    ctx.packet = q;
    if (s.tracing)
      s.record({
        rule: builtin(100, `outport == "${out}" && next hop == ${formatHop(hop!)}`),
        action: 'eth.dst = known MAC',
        before,
      });
    return 'next';
  }
  if (dp.snatOrLbRouterIps.has(ipKey(dst)))
    return s.drop('to a router SNAT/LB address that was not unSNATed', builtin(2, 'ip.dst == router SNAT/LB address'));
  const learned = hop === undefined ? undefined : s.net.neighbors.get(out)?.get(ipKey(hop));
  const q = copyPacket(p);
  q['eth.dst'] = learned ?? 0;
  ctx.packet = q;
  if (s.tracing)
    s.record({
      rule: builtin(1, isIPv4(p) ? 'ip4' : 'ip6'),
      action: learned !== undefined ? 'get_arp: MAC binding' : 'get_arp: no MAC binding',
      before,
    });
  return 'next';
}

/** lr_in_gw_redirect: distributed NAT sources its traffic from the external MAC; the rest goes via the gateway. */
export function gwRedirect(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  if (dp.isGateway || dp.dgps.length === 0 || !dp.dgps.includes(ctx.outport)) return 'next';
  const src = ipSrc(ctx.packet);
  const n = dp.nats.find(
    (x) => x.distributed && x.logicalIp === src && x.gatewayPort === ctx.outport && natResident(s, x),
  );
  if (n !== undefined) {
    const before = ctx.packet;
    ctx.packet = withFields(before, { 'eth.src': n.externalMac! });
    ctx.rt.srcIp = n.externalIp;
    if (s.tracing)
      s.record({
        rule: { kind: 'nat', key: n.key, priority: 100 },
        action: 'eth.src = external_mac (distributed NAT)',
        before,
      });
    return 'next';
  }
  const port = routerPort(s, ctx.outport)!;
  const local = resident(s, port.crName!);
  ctx.rt.redirected = !local;
  if (s.tracing)
    s.record({
      rule: builtin(50, `outport == "${port.name}"`),
      action: `outport = "${port.crName}"`,
      note: local ? 'gateway port resident here' : 'tunnelled to the gateway chassis',
    });
  return 'next';
}

/** The ARP request or NS lr_in_arp_request sends for the packet's unknown next hop. */
function resolutionRequest(s: S, p: Packet, hop: number | bigint): { packet: Packet; rule: TraceRule } {
  const { ctx } = s;
  if (isIPv4(p)) {
    return {
      packet: arpRequestFor(p['eth.src'], ctx.rt.srcIp as number, hop as number),
      rule: builtin(100, 'eth.dst == 00:00:00:00:00:00 && ip4'),
    };
  }
  // Priority 200 for a static route's next hop (NS to its group), else 100 (NS to the packet's destination's group).
  const own = s.dp.ndNsNexthops.has(ipKey(hop));
  const dst = own ? (hop as bigint) : (p['ip6.dst'] ?? 0n);
  const match = own
    ? `eth.dst == 00:00:00:00:00:00 && ip6 && xxreg0 == ${formatHop(hop)}`
    : 'eth.dst == 00:00:00:00:00:00 && ip6';
  return { packet: ndNsFor({ mac: p['eth.src'], dst, target: hop as bigint }), rule: builtin(own ? 200 : 100, match) };
}

/** lr_in_arp_request: ask for an unknown next hop, or output. */
export function arpRequest(s: S): 'next' | 'stop' {
  const { ctx } = s;
  const p = ctx.packet;
  if (p['eth.dst'] === 0 && isIP(p)) {
    const hop = ctx.rt.nexthop!;
    const { packet: req, rule } = resolutionRequest(s, p, hop);
    const kind = isIPv4(p) ? 'arp-request' : 'nd-ns';
    if (s.tracing) s.record({ rule, action: `${kind} for ${formatHop(hop)}`, note: 'the packet waits for the answer' });
    s.run.drops.push({
      datapath: s.dp.name,
      stage: s.stage,
      reason: `next hop ${formatHop(hop)} unresolved (${kind} sent)`,
    });
    s.spawn({
      dp: s.dp,
      pipeline: 'egress',
      inport: ctx.inport,
      outport: ctx.outport,
      packet: req,
      carry: ctx.carry(),
      generated: kind,
      depth: s.job.depth,
      redirected: ctx.rt.redirected === true,
    });
    return 'stop';
  }
  s.spawn({
    dp: s.dp,
    pipeline: 'egress',
    inport: ctx.inport,
    outport: ctx.outport,
    packet: p,
    carry: ctx.carry(),
    depth: s.job.depth,
    redirected: ctx.rt.redirected === true,
  });
  return 'stop';
}
