/**
 * Router NAT and load balancing as northd 23.03 builds them
 * (build_lrouter_nat_defrag_and_lb, build_lrouter_in_unsnat_flow,
 * build_lrouter_in_dnat_flow, build_lrouter_out_undnat_flow,
 * build_lrouter_out_snat_flow, build_lrouter_nat_flows_for_lb):
 *
 * - on a gateway router (options:chassis) NAT uses two zones: unSNAT and
 *   SNAT in the SNAT zone, DNAT/unDNAT (and LB) in the DNAT zone; every IP
 *   packet leaving is looked up in the DNAT zone (undnat) and new ones are
 *   committed there;
 * - on a router with a distributed gateway port NAT applies only to traffic
 *   entering (unsnat, dnat) or leaving (undnat, snat) through that port, in
 *   one common zone (`*_in_czone`), only where the port is resident
 *   (or, for distributed dnat_and_snat, where its logical port is);
 * - routers with neither do no NAT at all; load balancers still apply.
 */
import { CS_EST, CS_NEW, CS_REL, MARK_FORCE_SNAT, MARK_NATTED, MARK_SKIP_SNAT } from '../conntrack/state.ts';
import { findVip } from '../compile/lb.ts';
import { ipKey } from '../compile/addresses.ts';
import { dnatZone, snatZone } from '../compile/ports.ts';
import type { LbVip, NatRule, RouterDp } from '../compile/types.ts';
import { dstPort, ipDst, ipSrc, isIP, l4ProtoOf, srcPort, withFields, withIPs } from '../../model/packet/packet.ts';
import type { TraceRule } from '../trace.ts';
import {
  FLAG_FORCE_SNAT_FOR_DNAT,
  FLAG_FORCE_SNAT_FOR_LB,
  FLAG_LOOPBACK,
  FLAG_SKIP_SNAT_FOR_LB,
  FLAG_USE_SNAT_ZONE,
  NO_CARRY,
} from './context.ts';
import { ctIs, ctNot } from './ct-bits.ts';
import { ctCommit, ctLookup } from './ct-ops.ts';
import { rejectReplyFor } from './generate.ts';
import { resident, routerPort } from './router-input.ts';
import type { StageRun } from './run.ts';

type S = StageRun<RouterDp>;

export const natRule = (n: NatRule, priority: number): TraceRule => ({
  kind: 'nat',
  key: n.key,
  priority,
  match: `${n.nat.type} ${n.nat.externalIp} <-> ${n.nat.logicalIp}`,
});

/** Where a gateway-port NAT rule applies: its logical port's chassis (distributed) or the gateway's. */
export function natResident(s: S, n: NatRule): boolean {
  if (n.distributed) return resident(s, n.nat.logicalPort!);
  const gp = n.gatewayPort === undefined ? undefined : routerPort(s, n.gatewayPort);
  return gp?.crName === undefined || resident(s, gp.crName);
}

export const isDistributed = (dp: RouterDp): boolean => !dp.isGateway && dp.dgps.length > 0;

/** lr_in_unsnat. */
export function unsnat(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  if (!isIP(p)) return 'next';
  const dst = ipDst(p)!;
  const nat = dp.nats.find((n) => n.nat.type !== 'dnat' && n.externalIp === dst);
  if (dp.isGateway) {
    const vip = findVip(dp.vips, dst, l4ProtoOf(p), dstPort(p));
    if (vip?.port !== undefined && dp.natExternalIps.has(ipKey(dst))) return 'next'; // 120: LB VIP on a NAT address
    const force = forceSnatUnsnat(s, dst);
    if (force) return force;
    if (nat === undefined) return 'next';
    if (nat.stateless) return 'next';
    ctLookup(s, {
      zone: snatZone(dp.name),
      action: 'ct_snat',
      nat: true,
      rule: s.tracing ? natRule(nat, 90) : undefined,
    });
    return 'next';
  }
  if (nat === undefined || nat.gatewayPort !== ctx.inport || !natResident(s, nat) || nat.stateless) return 'next';
  if (!ctx.hasFlag(FLAG_LOOPBACK)) {
    ctLookup(s, {
      zone: dnatZone(dp.name),
      action: 'ct_snat_in_czone',
      nat: true,
      rule: s.tracing ? natRule(nat, 100) : undefined,
    });
  } else if (ctx.hasFlag(FLAG_USE_SNAT_ZONE)) {
    ctLookup(s, {
      zone: snatZone(dp.name),
      action: 'ct_snat',
      nat: true,
      rule: s.tracing ? natRule(nat, 100) : undefined,
    });
  }
  return 'next';
}

/** Gateway router force-SNAT addresses (lb_force_snat_ip / dnat_force_snat_ip) are unSNATed at 110. */
function forceSnatUnsnat(s: S, dst: number | bigint): 'next' | undefined {
  const { dp, ctx } = s;
  const ips = [dp.dnatForceSnat, dp.lbForceSnat === 'router_ip' ? undefined : dp.lbForceSnat].flatMap((f) =>
    f ? [f.v4, f.v6] : [],
  );
  let hit = ips.some((ip) => ip !== undefined && ip === dst);
  if (!hit && dp.lbForceSnat === 'router_ip') {
    const port = routerPort(s, ctx.inport);
    hit = port?.networks.find((n) => n.family === 4)?.ip === dst;
  }
  if (!hit) return undefined;
  ctLookup(s, {
    zone: snatZone(dp.name),
    action: 'ct_snat',
    nat: true,
    rule: s.tracing ? { kind: 'builtin', priority: 110, match: 'ip.dst == force SNAT address' } : undefined,
  });
  return 'next';
}

/** lr_in_defrag: traffic to a router LB VIP goes through the DNAT zone. */
export function defrag(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  if (!dp.hasLbVip || !isIP(ctx.packet)) return 'next';
  const dst = ipDst(ctx.packet)!;
  if (!dp.vips.has(ipKey(dst))) return 'next';
  ctLookup(s, {
    zone: dnatZone(dp.name),
    action: 'ct_dnat',
    nat: true,
    rule: s.tracing ? { kind: 'builtin', priority: 100, match: 'ip && ip.dst == LB VIP' } : undefined,
  });
  return 'next';
}

function lbDnat(s: S, vip: LbVip): 'next' | 'stop' {
  const { dp, ctx } = s;
  const rule: TraceRule = {
    kind: 'lb',
    priority: vip.port !== undefined ? 120 : 110,
    key: vip.key,
    name: vip.lb.name,
    match: `ct.new && !ct.rel && ip.dst == ${vip.vipText}`,
  };
  if (vip.backends.length === 0) {
    if (!vip.reject) return s.drop(`VIP ${vip.vipText} has no backends`, rule);
    const { packet, kind } = rejectReplyFor(ctx.packet);
    s.drop(`VIP ${vip.vipText} has no backends (reject)`, rule);
    s.spawn({
      dp,
      pipeline: 'egress',
      inport: '',
      outport: ctx.inport,
      packet,
      carry: { ...NO_CARRY, flags: FLAG_LOOPBACK },
      generated: kind,
      startAt: 'lr_out_snat',
    });
    return 'stop';
  }
  let mark = MARK_NATTED;
  if (vip.skipSnat) {
    ctx.setFlag(FLAG_SKIP_SNAT_FOR_LB);
    mark |= MARK_SKIP_SNAT;
  } else if (dp.lbForceSnat !== undefined) {
    ctx.setFlag(FLAG_FORCE_SNAT_FOR_LB);
    mark |= MARK_FORCE_SNAT;
  }
  const i = s.run.select('lb-backend', rule.key!, vip.backends.length, ctx.packet);
  const be = vip.backends[i]!;
  ctCommit(s, {
    zone: dnatZone(dp.name),
    action: `ct_lb_mark(backends=${vip.backends.map((b) => b.text).join(',')})`,
    nat: true,
    rule,
    note: `backend ${be.text}`,
    commit: {
      nat: { kind: 'dnat', ip: be.ip, ...(be.port !== undefined ? { port: be.port } : {}) },
      mark: { value: mark, mask: mark },
    },
  });
  return 'next';
}

function natDnat(s: S, n: NatRule): 'next' | 'stop' {
  const { dp, ctx } = s;
  if (dp.isGateway) {
    ctx.setFlag(FLAG_LOOPBACK);
    if (dp.dnatForceSnat !== undefined) ctx.setFlag(FLAG_FORCE_SNAT_FOR_DNAT);
  }
  if (n.stateless) {
    const before = ctx.packet;
    ctx.packet = withIPs(before, undefined, n.logicalIp);
    if (s.tracing) s.record({ rule: natRule(n, 100), action: 'ip.dst = logical_ip (stateless)', before });
    return 'next';
  }
  const range = n.portRange;
  ctCommit(s, {
    zone: dnatZone(dp.name),
    action: dp.isGateway ? 'ct_dnat(logical_ip)' : 'ct_dnat_in_czone(logical_ip)',
    nat: true,
    rule: s.tracing ? natRule(n, 100) : undefined,
    commit: { nat: { kind: 'dnat', ip: n.logicalIp, ...(range ? { port: range.lo, portMax: range.hi } : {}) } },
  });
  return 'next';
}

/** lr_in_dnat. */
export function dnat(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  if (!isIP(p)) return 'next';
  const dst = ipDst(p)!;
  if (dp.hasLbVip && ctIs(ctx, CS_NEW) && ctNot(ctx, CS_REL)) {
    const vip = findVip(dp.dnatVips, dst, l4ProtoOf(p), dstPort(p));
    const gw = isDistributed(dp) ? routerPort(s, dp.dgps[0]!) : undefined;
    if (vip && (gw === undefined || resident(s, gw.crName!))) return lbDnat(s, vip);
  }
  const n = dp.nats.find((x) => x.nat.type !== 'snat' && x.externalIp === dst);
  if (n !== undefined && (dp.isGateway || (n.gatewayPort === ctx.inport && natResident(s, n)))) return natDnat(s, n);
  if (dp.hasLbVip && ctIs(ctx, CS_EST) && ctNot(ctx, CS_REL) && ctNot(ctx, CS_NEW) && ctx.ctMark & MARK_NATTED) {
    if (ctx.ctMark & MARK_SKIP_SNAT) ctx.setFlag(FLAG_SKIP_SNAT_FOR_LB);
    if (ctx.ctMark & MARK_FORCE_SNAT) ctx.setFlag(FLAG_FORCE_SNAT_FOR_LB);
    return 'next';
  }
  if (dp.hasLbVip && ctIs(ctx, CS_REL) && ctNot(ctx, CS_EST) && ctNot(ctx, CS_NEW)) {
    ctLookup(s, {
      zone: ctx.ctZone ?? dnatZone(dp.name),
      action: 'ct_commit_nat',
      nat: true,
      rule: s.tracing ? { kind: 'builtin', priority: 50, match: 'ct.rel && !ct.est && !ct.new' } : undefined,
    });
  }
  return 'next';
}

/** lr_out_chk_dnat_local. */
export function chkDnatLocal(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  ctx.rt.dnatLocal = false;
  if (!isIP(ctx.packet) || dp.nats.length === 0) return 'next';
  if (ctx.ctMark & MARK_NATTED) ctx.rt.dnatLocal = true;
  else if (isDistributed(dp)) {
    const dst = ipDst(ctx.packet)!;
    ctx.rt.dnatLocal = dp.nats.some((n) => n.externalIp === dst && natResident(s, n));
  }
  return 'next';
}

/** lr_out_undnat. */
export function undnat(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  if (!isIP(p)) return 'next';
  if (dp.isGateway) {
    if (dp.nats.length === 0 && !dp.hasLbVip) return 'next';
    ctx.setFlag(FLAG_LOOPBACK);
    ctLookup(s, {
      zone: dnatZone(dp.name),
      action: 'ct_dnat',
      nat: true,
      rule: s.tracing ? { kind: 'builtin', priority: 50, match: 'ip' } : undefined,
    });
    return 'next';
  }
  if (dp.dgps.length === 0) return 'next';
  const src = ipSrc(p)!;
  const gw = routerPort(s, dp.dgps[0]!);
  if (dp.hasLbVip && ctx.outport === gw?.name && resident(s, gw.crName!) && isLbBackendReply(dp, src, srcPort(p))) {
    ctLookup(s, {
      zone: dnatZone(dp.name),
      action: 'ct_dnat_in_czone',
      nat: true,
      rule: s.tracing
        ? { kind: 'builtin', priority: 120, match: 'ip.src == LB backend && outport == gateway port' }
        : undefined,
    });
    return 'next';
  }
  const n = dp.nats.find(
    (x) => x.nat.type !== 'snat' && x.logicalIp === src && x.gatewayPort === ctx.outport && natResident(s, x),
  );
  if (n === undefined) return 'next';
  if (n.distributed) ctx.packet = withFields(ctx.packet, { 'eth.src': n.externalMac! });
  if (n.stateless) return 'next';
  ctLookup(s, {
    zone: dnatZone(dp.name),
    action: 'ct_dnat_in_czone',
    nat: true,
    rule: s.tracing ? natRule(n, 100) : undefined,
  });
  return 'next';
}

function isLbBackendReply(dp: RouterDp, src: number | bigint, sport: number | undefined): boolean {
  for (const list of dp.vips.values()) {
    for (const v of list)
      if (v.backends.some((b) => b.ip === src && (b.port === undefined || b.port === sport))) return true;
  }
  return false;
}

/** lr_out_post_undnat: a gateway router commits new connections in its DNAT zone. */
export function postUndnat(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  if (!dp.isGateway || (dp.nats.length === 0 && !dp.hasLbVip) || !isIP(ctx.packet) || !ctIs(ctx, CS_NEW)) return 'next';
  ctCommit(s, {
    zone: dnatZone(dp.name),
    action: 'ct_commit',
    nat: false,
    commit: {},
    recirculates: false,
    rule: s.tracing ? { kind: 'builtin', priority: 50, match: 'ip && ct.new' } : undefined,
  });
  return 'next';
}
