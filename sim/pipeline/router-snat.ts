/**
 * The router's last egress stages: lr_out_snat (build_lrouter_out_snat_flow,
 * force-SNAT flows), lr_out_egr_loop (a distributed router hairpinning to its
 * own NAT address) and lr_out_delivery.
 *
 * SNAT rules are tried longest logical prefix first (priority = prefix
 * length + 1, +128 on a distributed gateway port). On a gateway router a
 * packet in the reply direction of a connection its DNAT zone knows is not
 * SNATed (`!ct.trk || !ct.rpl`).
 */
import { CS_RPL } from '../conntrack/state.ts';
import { inPrefix } from '../compile/addresses.ts';
import { dnatZone, snatZone } from '../compile/ports.ts';
import type { NatRule, RouterDp } from '../compile/types.ts';
import { ipDst, ipSrc, isIP, isIPv4, isNdNs, withFields, withIPs } from '../../model/packet/packet.ts';
import {
  FLAG_FORCE_SNAT_FOR_DNAT,
  FLAG_FORCE_SNAT_FOR_LB,
  FLAG_LOOPBACK,
  FLAG_SKIP_SNAT_FOR_LB,
  FLAG_USE_SNAT_ZONE,
  NO_CARRY,
} from './context.ts';
import { ctIs, tracked } from './ct-bits.ts';
import { ctCommit } from './ct-ops.ts';
import { crossPatch } from './patch.ts';
import { isDistributed, natResident, natRule } from './router-nat.ts';
import { routerPort } from './router-input.ts';
import type { StageRun } from './run.ts';

type S = StageRun<RouterDp>;

function snatTo(
  s: S,
  zone: string,
  ip: number | bigint,
  action: string,
  rule: Parameters<typeof ctCommit>[1]['rule'],
  range?: NatRule['portRange'],
): 'next' {
  ctCommit(s, {
    zone,
    action,
    nat: true,
    ...(rule ? { rule } : {}),
    commit: { nat: { kind: 'snat', ip, ...(range ? { port: range.lo, portMax: range.hi } : {}) } },
  });
  return 'next';
}

/** Gateway router force-SNAT (priorities 110/100), for packets DNATed or load balanced here. */
function forceSnat(s: S): 'next' | undefined {
  const { dp, ctx } = s;
  const v4 = isIPv4(ctx.packet);
  const pick = (f: { v4?: number; v6?: bigint } | undefined) => (v4 ? f?.v4 : f?.v6);
  if (ctx.hasFlag(FLAG_FORCE_SNAT_FOR_LB) && dp.lbForceSnat === 'router_ip' && v4) {
    const ip = routerPort(s, ctx.outport)?.networks.find((n) => n.family === 4)?.ip;
    if (ip !== undefined)
      return snatTo(
        s,
        snatZone(dp.name),
        ip,
        'ct_snat(router port IP)',
        s.tracing ? { kind: 'builtin', priority: 110, match: 'flags.force_snat_for_lb == 1' } : undefined,
      );
  }
  const dnatIp = ctx.hasFlag(FLAG_FORCE_SNAT_FOR_DNAT) ? pick(dp.dnatForceSnat) : undefined;
  if (dnatIp !== undefined)
    return snatTo(
      s,
      snatZone(dp.name),
      dnatIp,
      'ct_snat(dnat_force_snat_ip)',
      s.tracing ? { kind: 'builtin', priority: 100, match: 'flags.force_snat_for_dnat == 1' } : undefined,
    );
  const lbIp = ctx.hasFlag(FLAG_FORCE_SNAT_FOR_LB) && dp.lbForceSnat !== 'router_ip' ? pick(dp.lbForceSnat) : undefined;
  if (lbIp !== undefined)
    return snatTo(
      s,
      snatZone(dp.name),
      lbIp,
      'ct_snat(lb_force_snat_ip)',
      s.tracing ? { kind: 'builtin', priority: 100, match: 'flags.force_snat_for_lb == 1' } : undefined,
    );
  return undefined;
}

/** The SNAT rule for a source address, longest logical prefix first. */
function snatRuleFor(s: S, src: number | bigint): NatRule | undefined {
  const { dp, ctx } = s;
  let best: NatRule | undefined;
  for (const n of s.dp.nats) {
    if (n.nat.type === 'dnat' || !inPrefix(n.logicalIp, n.logicalPlen, src)) continue;
    if (!dp.isGateway && (n.gatewayPort !== ctx.outport || !natResident(s, n))) continue;
    if (best === undefined || n.logicalPlen > best.logicalPlen) best = n;
  }
  return best;
}

/** lr_out_snat. */
export function snat(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  if (!isIP(p) || isNdNs(p)) return 'next';
  if (dp.isGateway) {
    if (ctx.hasFlag(FLAG_SKIP_SNAT_FOR_LB) && [...dp.vips.values()].some((l) => l.some((v) => v.skipSnat)))
      return 'next';
    const forced = forceSnat(s);
    if (forced) return forced;
  } else if (dp.dgps.length === 0) {
    return 'next';
  }
  const n = snatRuleFor(s, ipSrc(p)!);
  if (n === undefined) return 'next';
  const prio = n.logicalPlen + 1 + (dp.isGateway ? 0 : 128);
  if (n.distributed) ctx.packet = withFields(ctx.packet, { 'eth.src': n.externalMac! });
  if (n.stateless) {
    const before = p;
    ctx.packet = withIPs(ctx.packet, n.externalIp, undefined);
    if (s.tracing) s.record({ rule: natRule(n, prio), action: 'ip.src = external_ip (stateless)', before });
    return 'next';
  }
  if (dp.isGateway) {
    if (tracked(ctx) && ctIs(ctx, CS_RPL)) return 'next';
    return snatTo(
      s,
      snatZone(dp.name),
      n.externalIp,
      'ct_snat(external_ip)',
      s.tracing ? natRule(n, prio) : undefined,
      n.portRange,
    );
  }
  if (ctx.rt.dnatLocal) {
    ctx.rt.dnatLocal = false;
    return snatTo(
      s,
      snatZone(dp.name),
      n.externalIp,
      'ct_snat(external_ip)',
      s.tracing ? natRule(n, prio + 1) : undefined,
      n.portRange,
    );
  }
  return snatTo(
    s,
    dnatZone(dp.name),
    n.externalIp,
    'ct_snat_in_czone(external_ip)',
    s.tracing ? natRule(n, prio) : undefined,
    n.portRange,
  );
}

/** lr_out_egr_loop: traffic to the router's own NAT address out of its gateway port loops back in. */
export function egressLoop(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  if (!isDistributed(dp) || !isIP(ctx.packet)) return 'next';
  const dst = ipDst(ctx.packet)!;
  const n = dp.nats.find((x) => x.externalIp === dst && x.gatewayPort === ctx.outport && natResident(s, x));
  if (n === undefined) return 'next';
  const before = ctx.packet;
  const packet = withFields(before, { 'eth.src': before['eth.dst'], 'eth.dst': before['eth.src'] });
  if (s.tracing)
    s.record({
      rule: natRule(n, 100),
      action: 'clone { ct_clear; inport = outport; eth.dst <-> eth.src; next(pipeline=ingress) }',
    });
  const flags = FLAG_LOOPBACK | (ctx.rt.dnatLocal ? FLAG_USE_SNAT_ZONE : 0);
  s.spawn({
    dp,
    pipeline: 'ingress',
    inport: ctx.outport,
    outport: '',
    packet,
    carry: { ...NO_CARRY, flags },
    egressLoopback: true,
  });
  return 'stop';
}

/** lr_out_delivery: out of an enabled router port, across the patch. */
export function delivery(s: S): 'next' | 'stop' {
  const port = routerPort(s, s.ctx.outport);
  if (port === undefined || !port.enabled)
    return s.drop(`router port ${s.ctx.outport} is disabled or unknown`, { kind: 'builtin', priority: 0, match: '1' });
  if (s.tracing)
    s.record({
      rule: { kind: 'builtin', priority: 100, match: `outport == ${JSON.stringify(port.name)}` },
      action: 'output',
    });
  if (!crossPatch(s, port.name)) return s.drop(`router port ${port.name} is attached to nothing`);
  return 'stop';
}
