/**
 * Switch ACL stages as northd 23.03 builds them (build_pre_acls,
 * build_acl_hints, build_acls, consider_acl, build_stateful):
 *
 * - a switch is "stateful" for ACL purposes when it has an allow-related ACL
 *   (its own or a port group's) or a load balancer VIP; then every allow ACL
 *   commits new connections, replies and related packets of committed
 *   connections pass at 65532, ct.inv is dropped, and a drop ACL hitting an
 *   established connection marks it blocked (so its replies drop too);
 * - an ACL flow only matches when the hint bits of the packet's ct state say
 *   it may (the ACL hint stage), so an allow ACL is skipped for packets that
 *   are neither new nor in the request direction of a known connection;
 * - ACL priority + 1000 is the flow priority; `apply-after-lb` ACLs run in
 *   ls_in_acl_after_lb, after load balancing.
 */
import { CS_EST, CS_INV, CS_NEW, CS_REL, CS_RPL, MARK_BLOCKED } from '../conntrack/state.ts';
import { candidateAcls } from '../compile/acl-index.ts';
import { lspZone } from '../compile/ports.ts';
import type { AclRule, AclStage, SwitchDp, SwitchPortInfo } from '../compile/types.ts';
import { isEthMcast, isIP, isNdOrMld, type Packet, withFields } from '../../model/packet/packet.ts';
import type { TraceRule } from '../trace.ts';
import { blocked, ctIs, ctNot, tracked } from './ct-bits.ts';
import { NO_CARRY } from './context.ts';
import { ctCommit, ctLookup } from './ct-ops.ts';
import { rejectReplyFor } from './generate.ts';
import type { StageRun } from './run.ts';

type S = StageRun<SwitchDp>;

const builtin = (priority: number, match: string): TraceRule => ({ kind: 'builtin', priority, match });

const isDhcpv6 = (p: Packet): boolean => p['udp.src'] === 546 && p['udp.dst'] === 547;

/** The conntrack zone of the switch port this pipeline uses (the compiled one: no string built per packet). */
export function zoneOf(s: S): string {
  const name = s.job.pipeline === 'ingress' ? s.ctx.inport : s.ctx.outport;
  const port = s.port(name);
  return port?.kind === 'lsp' ? port.zone : lspZone(name);
}

/**
 * The zone register (reg13) a ct_commit of this pipeline uses. ovn-controller
 * gives a zone to the ports bound on the chassis (VIFs, localnet ports, the
 * l3gateway ports that attach a gateway router, options:chassis) and loads
 * the outport's into reg13 for the egress pipeline (physical.c, table 40). A
 * patch port to a distributed router has none: the register keeps the zone
 * the packet came in with. Seen on real packets: a reject ACL on an
 * established connection marks it blocked in the router port's own zone
 * towards a gateway router (seed 4242 case 593: the client's connection is
 * not blocked), in the client's zone towards a distributed router (seed 7
 * case 1051: it is, and the generated abort back to the client drops).
 */
function zoneRegister(s: S): string {
  if (s.job.pipeline === 'egress') {
    const port = s.port(s.ctx.outport);
    if (port?.kind === 'lsp' && port.type === 'router' && !towardsGatewayRouter(s, port))
      return s.ctx.ctZone ?? zoneOf(s);
  }
  return zoneOf(s);
}

function towardsGatewayRouter(s: S, port: SwitchPortInfo): boolean {
  const rp = port.routerPort === undefined ? undefined : s.port(port.routerPort);
  return rp?.kind === 'lrp' && s.net.routers.get(rp.router)?.isGateway === true;
}

/**
 * `dp.routerPorts.includes(port)` / `dp.localnetPorts.includes(port)`, read
 * from the port's info when it is a port of this switch (no string search).
 */
export function isRouterPort(s: S, port: string): boolean {
  const info = s.port(port);
  if (info?.kind === 'lsp' && info.switch === s.dp.name) return info.type === 'router' && info.routerPort !== undefined;
  return s.dp.routerPorts.includes(port);
}

export function isLocalnetPort(s: S, port: string): boolean {
  if (s.dp.localnetPorts.length === 0) return false;
  const info = s.port(port);
  if (info?.kind === 'lsp' && info.switch === s.dp.name) return info.type === 'localnet';
  return s.dp.localnetPorts.includes(port);
}

const skipsConntrack = (s: S, port: string): boolean => isRouterPort(s, port) || isLocalnetPort(s, port);

/** ls_in_pre_acl / ls_out_pre_acl. */
export function preAcl(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const dir = s.job.pipeline === 'ingress' ? 'in' : 'out';
  if (!dp.hasStatefulAcl && !dp.hasLbVip) return 'next';
  const stateless = dp.statelessAcls[dir];
  const ranks = candidateAcls(stateless, ctx.inport, ctx.outport, ctx.packet, s.aclScratch);
  for (let i = 0; i < ranks.length; i++) {
    const r = stateless.rules[ranks[i]!]!;
    if (r.test(ctx)) {
      ctx.sw.aclStateless = true;
      if (s.tracing) s.record({ rule: r.traceRule, action: 'allow-stateless: skip conntrack' });
      return 'next';
    }
  }
  if (!dp.hasStatefulAcl) return 'next';
  const p = ctx.packet;
  const port = dir === 'in' ? ctx.inport : ctx.outport;
  if (isEthMcast(p) || isNdOrMld(p) || isDhcpv6(p)) return 'next';
  if (!isIP(p)) return 'next';
  if (skipsConntrack(s, port)) {
    if (s.tracing)
      s.record({
        rule: builtin(110, `ip && ${dir === 'in' ? 'inport' : 'outport'} == ${JSON.stringify(port)}`),
        action: 'next (router/localnet port: no conntrack)',
      });
    return 'next';
  }
  ctx.sw.conntrackDefrag = true;
  return 'next';
}

/** ls_in_acl_hint / ls_out_acl_hint: which ACL flows the ct state allows to match. */
export function aclHint(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  if (!dp.hasStatefulAcl && !dp.hasLbVip) return 'next';
  const r = ctx.sw;
  if (ctIs(ctx, CS_NEW) && ctNot(ctx, CS_EST)) {
    r.hintAllowNew = r.hintDrop = true;
  } else if (ctNot(ctx, CS_NEW) && ctIs(ctx, CS_EST) && ctNot(ctx, CS_RPL) && blocked(ctx)) {
    r.hintAllowNew = r.hintDrop = true;
  } else if (!tracked(ctx)) {
    r.hintAllow = r.hintDrop = true;
  } else if (ctNot(ctx, CS_NEW) && ctIs(ctx, CS_EST) && ctNot(ctx, CS_RPL)) {
    r.hintAllow = r.hintBlock = true;
  } else if (ctNot(ctx, CS_EST)) {
    r.hintDrop = true;
  } else if (ctIs(ctx, CS_EST) && blocked(ctx)) {
    r.hintDrop = true;
  } else if (ctIs(ctx, CS_EST)) {
    r.hintBlock = true;
  }
  return 'next';
}

/** The 65532 flows of a stateful switch: replies and related pass, invalid and blocked replies drop. */
function stateful65532(s: S, stage: AclStage): 'next' | 'stop' | undefined {
  const { ctx } = s;
  if (stage === 'after_lb') {
    if (!ctx.sw.aclAllowRel) return undefined;
    if (s.tracing) s.record({ rule: builtin(65532, 'reg0[17] == 1'), action: 'next (reply or related)' });
    return 'next';
  }
  if (ctIs(ctx, CS_INV) || (ctIs(ctx, CS_EST) && ctIs(ctx, CS_RPL) && blocked(ctx))) {
    return s.drop(
      ctIs(ctx, CS_INV) ? 'conntrack says invalid (ct.inv)' : 'reply of a blocked connection',
      builtin(65532, 'ct.inv || (ct.est && ct.rpl && ct_mark.blocked == 1)'),
    );
  }
  const clean = ctNot(ctx, CS_NEW) && ctNot(ctx, CS_INV) && !blocked(ctx);
  if (clean && ctIs(ctx, CS_EST) && ctNot(ctx, CS_REL) && ctIs(ctx, CS_RPL)) {
    if (stage === 'in') {
      ctx.sw.hintDrop = ctx.sw.hintBlock = false;
      ctx.sw.aclAllowRel = true;
    }
    if (s.tracing)
      s.record({
        rule: builtin(65532, 'ct.est && !ct.rel && !ct.new && !ct.inv && ct.rpl && ct_mark.blocked == 0'),
        action: 'next (reply of a committed connection)',
      });
    return 'next';
  }
  if (clean && ctNot(ctx, CS_EST) && ctIs(ctx, CS_REL)) {
    if (stage === 'in') ctx.sw.aclAllowRel = true;
    ctLookup(s, {
      // The pipeline's zone register, as ct_commit { ct_mark.blocked = 1 } below.
      zone: zoneRegister(s),
      action: 'ct_commit_nat (related)',
      nat: true,
      rule: s.tracing ? builtin(65532, '!ct.est && ct.rel && !ct.new && !ct.inv && ct_mark.blocked == 0') : undefined,
    });
    return 'next';
  }
  return undefined;
}

type Effect = 'nomatch' | 'next' | 'drop' | 'reject';

/** consider_acl: what this ACL's flows do for a packet with these hints. */
function aclEffect(s: S, r: AclRule, hasStateful: boolean): Effect {
  const h = s.ctx.sw;
  const a = r.acl.action;
  if (a === 'allow-stateless') return 'next';
  if (a === 'allow' || a === 'allow-related') {
    if (!hasStateful) return 'next';
    if (!h.hintAllowNew && !h.hintAllow) return 'nomatch';
    if (h.hintAllowNew || r.acl.label !== undefined) {
      h.conntrackCommit = true;
      if (r.acl.label !== undefined) {
        h.aclLabel = true;
        h.label = r.acl.label;
      }
    }
    return 'next';
  }
  const verdict = a === 'reject' ? 'reject' : 'drop';
  if (!hasStateful || h.hintDrop) return verdict;
  if (!h.hintBlock) return 'nomatch';
  // A connection allowed before, now denied: mark it blocked so its replies drop too. The commit is in the
  // pipeline's zone register (`ct_commit` is ct(commit, zone=reg13)), which towards a gateway router is the
  // router port's own zone although that pipeline did no lookup (ls_out_pre_* skip router ports) and the
  // packet's ct_state is still the ingress zone's: there the commit is a lookup in another zone, and a
  // packet that cannot open a connection (a SYN-ACK) commits nothing.
  ctCommit(s, {
    zone: zoneRegister(s),
    action: 'ct_commit { ct_mark.blocked = 1 }',
    nat: false,
    commit: { mark: { value: MARK_BLOCKED, mask: MARK_BLOCKED } },
    recirculates: false,
  });
  return verdict;
}

/** Same-priority ACLs that would act differently: OVS picks one arbitrarily; we say so. */
function ambiguity(
  s: S,
  chosen: AclRule,
  rules: readonly AclRule[],
  ranks: readonly number[],
  from: number,
): string | undefined {
  for (let i = from; i < ranks.length; i++) {
    const r = rules[ranks[i]!]!;
    if (r.priority !== chosen.priority) break;
    if (r.acl.action !== chosen.acl.action && r.test(s.ctx))
      return `also matches at the same priority: ${r.key} (${r.acl.action}); OVS picks either`;
  }
  return undefined;
}

function reject(s: S, rule: TraceRule): 'stop' {
  if (!isIP(s.ctx.packet)) {
    // pinctrl_handle_reject answers anything but TCP and SCTP with pinctrl_handle_icmp, which sends nothing for a
    // non-IP frame (an ARP).
    return s.drop('rejected by ACL; not IP, so nothing is sent back', rule);
  }
  // pinctrl is sent the packet as the datapath holds it (the controller action is a datapath action).
  const { packet, kind } = rejectReplyFor(s.ctx.wire());
  if (s.tracing) s.record({ rule, action: `reject (${kind} back to the sender)` });
  s.run.drops.push({ datapath: s.dp.name, stage: s.stage, reason: 'rejected by ACL', rule });
  const ingress = s.job.pipeline === 'ingress';
  // Ingress: output <-> inport, resume at ls_out_qos_mark. Egress: resume at ls_in_l2_lkup.
  s.spawn({
    dp: s.dp,
    pipeline: ingress ? 'egress' : 'ingress',
    inport: ingress ? '' : s.ctx.outport,
    outport: ingress ? s.ctx.inport : '',
    packet,
    carry: NO_CARRY,
    generated: kind,
    startAt: ingress ? 'ls_out_qos_mark' : 'ls_in_l2_lkup',
  });
  return 'stop';
}

function applyDefault(s: S, stage: AclStage, hasStateful: boolean): 'next' | 'stop' {
  const { dp, ctx } = s;
  const drop = s.net.options.defaultAclDrop === true;
  if (hasStateful && stage !== 'after_lb' && isIP(ctx.packet)) {
    if (ctIs(ctx, CS_EST) && blocked(ctx)) {
      ctx.sw.conntrackCommit = true;
      if (s.tracing)
        s.record({ rule: builtin(1, 'ip && ct.est && ct_mark.blocked == 1'), action: 'next (commit: unblock)' });
      return 'next';
    }
    if (ctNot(ctx, CS_EST)) {
      if (drop) return s.drop('default ACL drop', builtin(1, 'ip && !ct.est'));
      ctx.sw.conntrackCommit = true;
      if (s.tracing) s.record({ rule: builtin(1, 'ip && !ct.est'), action: 'next (commit, no ACL matched)' });
      return 'next';
    }
  }
  if (dp.hasAcls && drop) return s.drop('default ACL drop', builtin(0, '1'));
  return 'next';
}

/** ls_in_acl, ls_in_acl_after_lb, ls_out_acl. */
export function aclStage(stage: AclStage): (s: S) => 'next' | 'stop' {
  return (s) => {
    const { dp, ctx } = s;
    if (stage !== 'after_lb' && !dp.hasAcls && !dp.hasLbVip) return 'next';
    if (isNdOrMld(ctx.packet)) return 'next';
    const hasStateful = dp.hasStatefulAcl || dp.hasLbVip;
    if (hasStateful) {
      const r = stateful65532(s, stage);
      if (r !== undefined) return r;
    }
    const index = dp.acls[stage];
    const rules = index.rules;
    const ranks = candidateAcls(index, ctx.inport, ctx.outport, ctx.packet, s.aclScratch);
    for (let i = 0; i < ranks.length; i++) {
      const rule = rules[ranks[i]!]!;
      if (!rule.test(ctx)) continue;
      const effect = aclEffect(s, rule, hasStateful);
      if (effect === 'nomatch') continue;
      const tr = rule.traceRule;
      const note = s.tracing ? ambiguity(s, rule, rules, ranks, i + 1) : undefined;
      if (effect === 'reject') return reject(s, tr);
      if (effect === 'drop') return s.drop(`dropped by ACL${note ? `; ${note}` : ''}`, tr);
      if (s.tracing)
        s.record({
          rule: tr,
          action: `${rule.acl.action}${ctx.sw.conntrackCommit ? ' (commit)' : ''}`,
          ...(note ? { note } : {}),
        });
      return 'next';
    }
    return applyDefault(s, stage, hasStateful);
  };
}

const UNBLOCK = { value: 0, mask: MARK_BLOCKED } as const;
const COMMIT_UNBLOCKED = { mark: UNBLOCK } as const;

/** ls_in_stateful / ls_out_stateful: commit what the ACLs asked to (blocked = 0, label). */
export function statefulStage(s: S): 'next' | 'stop' {
  const { ctx } = s;
  if (!ctx.sw.conntrackCommit || !tracked(ctx)) return 'next';
  const label = ctx.sw.aclLabel;
  ctCommit(s, {
    zone: zoneOf(s),
    action: label
      ? `ct_commit { ct_mark.blocked = 0; ct_label.label = ${ctx.sw.label} }`
      : 'ct_commit { ct_mark.blocked = 0 }',
    nat: false,
    rule: s.tracing ? builtin(100, `reg0[1] == 1 && reg0[13] == ${label ? 1 : 0}`) : undefined,
    commit: label
      ? { mark: UNBLOCK, label: { value: BigInt(ctx.sw.label) << 96n, mask: 0xffffffffn << 96n } }
      : COMMIT_UNBLOCKED,
    recirculates: false,
  });
  return 'next';
}

/** ls_in_qos_mark / ls_out_qos_mark: DSCP marking. */
export function qosMark(s: S): 'next' | 'stop' {
  const dir = s.job.pipeline === 'ingress' ? 'in' : 'out';
  for (const q of s.dp.qos[dir]) {
    if (q.dscp === undefined || !q.test(s.ctx)) continue;
    const before = s.ctx.packet;
    if (isIP(before)) s.ctx.packet = withFields(before, { 'ip.dscp': q.dscp });
    if (s.tracing)
      s.record({ rule: { kind: 'qos', priority: q.priority, key: q.key }, action: `ip.dscp = ${q.dscp}`, before });
    return 'next';
  }
  return 'next';
}
