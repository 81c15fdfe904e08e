/**
 * Switch load balancing as northd 23.03 builds it (build_pre_lb,
 * build_pre_stateful, build_lb_rules, build_lb_hairpin):
 *
 * - with a VIP on the switch, every IP packet goes through conntrack with NAT
 *   (`ct_lb_mark`) in the port's zone, so established LB traffic is DNATed
 *   and replies are un-DNATed; router and localnet ports skip it (localnet
 *   ports only when the switch has no VIP);
 * - a new connection to VIP[:port] is DNATed to one backend (the selector
 *   picks it) and committed (`ct_lb_mark(backends=...)`); a VIP without
 *   backends drops (or rejects with options:reject);
 * - hairpin: a client load-balanced to itself is SNATed to the VIP and sent
 *   back out of its own port, and the backend's reply is un-SNATed;
 * - affinity (options:affinity_timeout, build_lb_affinity_ls_flows): a new
 *   connection whose reg1/reg2 (set by pre_stateful from the address the
 *   client sent to) name such a VIP asks for a learned backend
 *   (ls_in_lb_aff_check, `chk_lb_aff()`); the learned flow matches the
 *   client, the VIP and the packet's current destination. With one that is
 *   still a backend it goes there (ls_in_lb priority 150). Without,
 *   ls_in_lb_aff_learn learns the backend the packet is now addressed to
 *   with `commit_lb_aff(...)` and, in OVN 23.03, ends there: northd writes
 *   that flow's action as `commit_lb_aff(...); /* drop *\/`. So the packet
 *   that learns is dropped, and so is every later packet of its connection
 *   while it is new: conntrack has already DNATed it, so the learned flow
 *   (on the VIP) misses and the learn flow (on the backend) matches again.
 *   A new connection of the same client then finds the affinity and passes.
 *   Real packets through OVS 3.1 show all of it
 *   (verify/datapath/lb-affinity.test.ts), and ovn-trace stops in
 *   ls_in_lb_aff_learn too.
 */
import { formatIPv4, formatIPv6 } from '../../model/addr/index.ts';
import { affinityKey, CS_EST, CS_NEW, MARK_NATTED } from '../conntrack/state.ts';
import { ipKey } from '../compile/addresses.ts';
import { findVip } from '../compile/lb.ts';
import type { LbVip, SwitchDp } from '../compile/types.ts';
import { FLAG_LOOPBACK, NO_CARRY } from './context.ts';
import { ctIs, tracked } from './ct-bits.ts';
import { ctCommit, ctLookup } from './ct-ops.ts';
import {
  dstPort,
  ipDst,
  ipSrc,
  isEthMcast,
  isIP,
  isNdOrMld,
  l4ProtoOf,
  type Packet,
  srcPort,
  withFields,
} from '../../model/packet/packet.ts';
import { rejectReplyFor } from './generate.ts';
import type { StageRun } from './run.ts';
import { isLocalnetPort, isRouterPort, zoneOf } from './switch-acl.ts';
import type { TraceRule } from '../trace.ts';

type S = StageRun<SwitchDp>;

export const hairpinZone = (sw: string): string => `ls:${sw}:snat`;

/** ls_in_pre_lb / ls_out_pre_lb. */
export function preLb(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  if (isEthMcast(p) || isNdOrMld(p) || !isIP(p) || ctx.sw.aclStateless) return 'next';
  const ingress = s.job.pipeline === 'ingress';
  const port = ingress ? ctx.inport : ctx.outport;
  const skip = isRouterPort(s, port) || (!dp.hasLbVip && isLocalnetPort(s, port));
  if (skip) {
    // skip_port_from_conntrack: egress clears ct state unless the switch has stateful ACLs.
    const clear = !ingress && !dp.hasStatefulAcl;
    if (clear) ctx.ctClear();
    if (s.tracing)
      s.record({
        rule: {
          kind: 'builtin',
          priority: 110,
          match: `ip && ${ingress ? 'inport' : 'outport'} == ${JSON.stringify(port)}`,
        },
        action: clear ? 'ct_clear; next' : 'next',
      });
    return 'next';
  }
  if (dp.hasLbVip) ctx.sw.conntrackNat = true;
  return 'next';
}

/** The VIP a packet is addressed to (remembered for the pass: pre_stateful and lb ask about the same packet). */
function vipOf(s: S, p: Packet): LbVip | undefined {
  const r = s.ctx.sw;
  if (r.vipPacket === p) return r.vip;
  const dst = ipDst(p);
  const vip = dst === undefined ? undefined : findVip(s.dp.vipTable, dst, l4ProtoOf(p), dstPort(p));
  r.vipPacket = p;
  r.vip = vip;
  return vip;
}

/** ls_in_pre_stateful / ls_out_pre_stateful: send to conntrack as the hints say. */
export function preStateful(s: S): 'next' | 'stop' {
  const { ctx } = s;
  const zone = zoneOf(s);
  if (ctx.sw.conntrackNat) {
    const vip = s.job.pipeline === 'ingress' ? vipOf(s, ctx.packet) : undefined;
    if (vip) {
      ctx.sw.origDstIp = vip.ip;
      if (vip.port !== undefined) ctx.sw.origDstPort = vip.port;
      ctx.sw.regVip = vip;
    }
    ctLookup(s, {
      zone,
      action: 'ct_lb_mark',
      nat: true,
      rule: s.tracing
        ? {
            kind: 'builtin',
            priority: vip ? 120 : 110,
            match: vip ? `reg0[2] == 1 && VIP ${vip.vipText}` : 'reg0[2] == 1',
          }
        : undefined,
    });
    return 'next';
  }
  if (ctx.sw.conntrackDefrag) {
    ctLookup(s, {
      zone,
      action: 'ct_next',
      nat: false,
      rule: s.tracing ? { kind: 'builtin', priority: 100, match: 'reg0[0] == 1' } : undefined,
    });
  }
  return 'next';
}

const lbRule = (vip: LbVip): TraceRule => ({
  kind: 'lb',
  priority: vip.port !== undefined ? 120 : 110,
  key: vip.key,
  name: vip.lb.name,
  match: `ct.new && ${vip.family === 4 ? 'ip4' : 'ip6'}.dst == ${vip.vipText}`,
});

/** ls_in_lb: a new connection to a VIP is DNATed to a backend. */
export function lbStage(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  if (!dp.hasLbVip || !ctIs(ctx, CS_NEW)) return 'next';
  const vip = vipOf(s, ctx.packet);
  if (vip === undefined) return 'next';
  ctx.sw.conntrackCommit = false;
  if (vip.backends.length === 0) {
    const rule = lbRule(vip);
    if (!vip.reject) return s.drop(`VIP ${vip.vipText} has no backends`, rule);
    const { packet, kind } = rejectReplyFor(ctx.packet);
    s.drop(`VIP ${vip.vipText} has no backends (reject)`, rule);
    s.spawn({
      dp,
      pipeline: 'egress',
      inport: '',
      outport: ctx.inport,
      packet,
      carry: NO_CARRY,
      generated: kind,
      startAt: 'ls_out_qos_mark',
    });
    return 'stop';
  }
  const learned = ctx.sw.lbAffBackend;
  const sticky = learned === undefined ? -1 : vip.backends.findIndex((b) => b.text === learned);
  if (sticky >= 0) {
    // Priority 150: the learned backend alone (`ct_lb_mark(backends=<it>)`).
    const be = vip.backends[sticky]!;
    ctCommit(s, {
      zone: zoneOf(s),
      action: s.tracing ? `ct_lb_mark(backends=${be.text})` : 'ct_lb_mark',
      nat: true,
      rule: s.tracing
        ? { ...lbRule(vip), priority: 150, match: `reg9[6] == 1 && ct.new && reg4 == ${be.text}` }
        : undefined,
      note: s.tracing ? `backend ${be.text} (learned affinity)` : undefined,
      commit: be.dnat,
    });
    return 'next';
  }
  const i = s.run.select('lb-backend', vip.key, vip.backends.length, ctx.packet);
  const be = vip.backends[i]!;
  ctCommit(s, {
    zone: zoneOf(s),
    action: s.tracing ? `ct_lb_mark(backends=${vip.backends.map((b) => b.text).join(',')})` : 'ct_lb_mark',
    nat: true,
    rule: s.tracing ? lbRule(vip) : undefined,
    note: s.tracing ? `backend ${be.text}` : undefined,
    commit: be.dnat,
  });
  return 'next';
}

const clientOf = (p: Packet): number | bigint => ipSrc(p) ?? 0;

/** The VIP as ls_in_lb_aff_check matches it (northd keeps it in reg1/reg2, xxreg1 for IPv6). */
function affMatch(vip: LbVip): string {
  const ip =
    typeof vip.ip === 'number' ? `ip4 && reg1 == ${formatIPv4(vip.ip)}` : `ip6 && xxreg1 == ${formatIPv6(vip.ip)}`;
  return `ct.new && ${ip}${vip.port !== undefined ? ` && reg2[0..15] == ${vip.port}` : ''}`;
}

/** ls_in_lb_aff_check: `reg9[6] = chk_lb_aff();` for a new connection whose reg1/reg2 name a VIP with affinity. */
export function lbAffCheck(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const vip = ctx.sw.regVip;
  if (vip?.affinityTimeout === undefined || !ctIs(ctx, CS_NEW)) return 'next';
  const p = ctx.packet;
  // The learned flow matches the packet as it is now: a connection conntrack already DNATed misses.
  const toVip = ipDst(p) === vip.ip && (vip.port === undefined || dstPort(p) === vip.port);
  const entry = toVip ? s.run.ct.affinity(affinityKey(dp.name, vip.key, clientOf(p))) : undefined;
  ctx.sw.lbAffBackend = entry?.backend;
  if (s.tracing)
    s.record({
      rule: { kind: 'builtin', priority: 100, match: affMatch(vip) },
      action: 'reg9[6] = chk_lb_aff(); next;',
      note: entry ? `learned backend ${entry.backend}` : 'no learned backend',
    });
  return 'next';
}

/**
 * ls_in_lb_aff_learn: a new connection of an affinity VIP with no learned
 * backend, now addressed to one of the VIP's backends, learns it with
 * `commit_lb_aff(...)`, which in OVN 23.03 also ends the packet (see the header).
 */
export function lbAffLearn(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const vip = ctx.sw.regVip;
  if (vip?.affinityTimeout === undefined || ctx.sw.lbAffBackend !== undefined || !ctIs(ctx, CS_NEW)) return 'next';
  const p = ctx.packet;
  const dst = ipDst(p);
  const port = dstPort(p);
  if (l4ProtoOf(p) !== vip.proto && vip.port !== undefined) return 'next';
  const be = vip.backends.find((b) => b.ip === dst && (b.port === undefined || b.port === port));
  if (be === undefined) return 'next';
  s.run.ct.learnAffinity(affinityKey(dp.name, vip.key, clientOf(p)), {
    backend: be.text,
    timeout: vip.affinityTimeout,
  });
  const action =
    `commit_lb_aff(vip = "${vip.vipText}", backend = "${be.text}", proto = ${vip.proto}, ` +
    `timeout = ${vip.affinityTimeout}); /* drop */`;
  return s.drop(`load balancer ${vip.lb.name}: ${action} (OVN 23.03 drops the packet that learns an affinity)`, {
    kind: 'lb',
    priority: 100,
    key: vip.key,
    name: vip.lb.name,
    match: `reg9[6] == 0 && ${affMatch(vip)} && ${vip.family === 4 ? 'ip4' : 'ip6'}.dst == ${be.text}`,
  });
}

/**
 * chk_lb_hairpin(): the flows ovn-controller 23.03 installs for it
 * (controller/lflow.c add_lb_vip_hairpin_flows, one per VIP and backend)
 * match a load-balanced connection (ct_mark.natted) whose packet now goes
 * from the backend to itself, with reg1 (and reg2[0..15]) holding that VIP
 * (and port) as pre_stateful loaded them and, for a VIP with a port, the
 * LB's protocol and the packet's destination port equal to the backend's.
 * The port is read from the packet as the datapath NATed it: OVS 3.1's
 * userspace conntrack translates no SCTP port, so an SCTP client balanced to
 * itself on a backend port other than the VIP's is not a hairpin there
 * (seed 777 case 591: the packet went on to an after-LB reject ACL).
 */
function isHairpin(s: S, p: Packet, src: number | bigint | undefined): boolean {
  const { dp, ctx } = s;
  if ((ctx.ctMark & MARK_NATTED) === 0 || src === undefined || src !== ipDst(p)) return false;
  const proto = l4ProtoOf(p);
  const port = dstPort(p);
  for (const { vip, backend } of dp.lbBackends.get(ipKey(src)) ?? []) {
    if (vip.ip !== ctx.sw.origDstIp) continue;
    if (backend.port === undefined) return true;
    if (vip.port === ctx.sw.origDstPort && vip.proto === proto && backend.port === port) return true;
  }
  return false;
}

/** ls_in_pre_hairpin: chk_lb_hairpin() and chk_lb_hairpin_reply(). */
export function preHairpin(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  if (!dp.hasLbVip || !isIP(p) || !tracked(ctx)) return 'next';
  const src = ipSrc(p);
  const dst = ipDst(p);
  ctx.sw.hairpin = isHairpin(s, p, src);
  const backends = src === undefined ? undefined : dp.lbBackends.get(ipKey(src));
  ctx.sw.hairpinReply = false;
  if (backends !== undefined) {
    const sport = srcPort(p);
    // The reply flow chk_lb_hairpin learned (controller/lflow.c add_lb_vip_hairpin_flows) matches the
    // address the hairpinned packet was SNATed to: options:hairpin_snat_ip where set, else the VIP (seed 7
    // case 626: a reply to hairpin_snat_ip was routed away instead of un-NATed back to the client).
    for (const { vip, backend } of backends) {
      if (hairpinSnatIp(vip, vip.ip) === dst && (backend.port === undefined || backend.port === sport))
        ctx.sw.hairpinReply = true;
    }
  }
  if (ctx.sw.hairpin || ctx.sw.hairpinReply) {
    if (s.tracing)
      s.record({
        rule: { kind: 'builtin', priority: 100, match: 'ip && ct.trk' },
        action: ctx.sw.hairpin ? 'hairpin (client balanced to itself)' : 'hairpin reply',
      });
  }
  return 'next';
}

function hairpinSnatIp(vip: LbVip | undefined, fallback: number | bigint): number | bigint {
  const h = vip?.hairpinSnatIp;
  const v = typeof fallback === 'number' ? h?.v4 : h?.v6;
  return v ?? fallback;
}

/** ls_in_nat_hairpin: SNAT hairpinned traffic to the VIP (or hairpin_snat_ip). */
export function natHairpin(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  if (!dp.hasLbVip || !isIP(ctx.packet)) return 'next';
  const zone = hairpinZone(dp.name);
  if (ctx.sw.hairpin && ctIs(ctx, CS_NEW) && ctx.sw.origDstIp !== undefined) {
    const vip = dp.vipTable.get(ipKey(ctx.sw.origDstIp))?.[0];
    const ip = hairpinSnatIp(vip, ctx.sw.origDstIp);
    ctCommit(s, {
      zone,
      action: 'ct_snat_to_vip',
      nat: true,
      commit: { nat: { kind: 'snat', ip } },
      // ovn-controller's table for it commits with NAT and does not recirculate (ct-ops.ts ctCommit).
      recirculates: false,
      rule: s.tracing ? { kind: 'builtin', priority: 100, match: 'ip && ct.new && ct.trk && reg0[6] == 1' } : undefined,
    });
    return 'next';
  }
  if ((ctx.sw.hairpin && ctIs(ctx, CS_EST)) || ctx.sw.hairpinReply) {
    ctLookup(s, {
      zone,
      action: 'ct_snat',
      nat: true,
      rule: s.tracing
        ? {
            kind: 'builtin',
            priority: ctx.sw.hairpin ? 100 : 90,
            match: ctx.sw.hairpin ? 'ip && ct.est && ct.trk && reg0[6] == 1' : 'ip && reg0[12] == 1',
          }
        : undefined,
    });
  }
  return 'next';
}

/** ls_in_hairpin: loop hairpinned packets back out of their own port. */
export function hairpinStage(s: S): 'next' | 'stop' {
  const { ctx } = s;
  if (!ctx.sw.hairpin && !ctx.sw.hairpinReply) return 'next';
  const before = ctx.packet;
  ctx.packet = withFields(before, { 'eth.src': before['eth.dst'], 'eth.dst': before['eth.src'] });
  ctx.outport = ctx.inport;
  ctx.setFlag(FLAG_LOOPBACK);
  if (s.tracing)
    s.record({
      rule: { kind: 'builtin', priority: 1, match: '(reg0[6] == 1 || reg0[12] == 1)' },
      action: 'eth.dst <-> eth.src; outport = inport; output',
      before,
    });
  s.spawn({
    dp: s.dp,
    pipeline: 'egress',
    inport: ctx.inport,
    outport: ctx.outport,
    packet: ctx.packet,
    carry: ctx.carry(),
    depth: s.job.depth,
  });
  return 'stop';
}
