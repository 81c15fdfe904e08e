/**
 * The logical switch pipelines, stage by stage, named as northd 23.03 names
 * them. Stages that never change a verdict or a packet here (DHCP/DNS
 * responders, QoS meters, external ports) are left out: for the packets the
 * simulator models they only say `next`.
 */
import type { SwitchDp } from '../compile/types.ts';
import { fdbKey } from '../conntrack/state.ts';
import { publicPacket } from '../../model/packet/canonical.ts';
import { isEthMcast, isMcastMac } from '../../model/packet/packet.ts';
import type { TraceRule } from '../trace.ts';
import { inPortSecurityAllows, outPortSecurityAllows } from './port-security.ts';
import { crossPatch } from './patch.ts';
import { type Plan, planOf, runPipeline, type StageRun, type SwitchStage } from './run.ts';
import { aclHint, aclStage, preAcl, qosMark, statefulStage } from './switch-acl.ts';
import { arpRsp, l2Lookup } from './switch-l2.ts';
import {
  hairpinStage,
  lbAffCheck,
  lbAffLearn,
  lbStage,
  natHairpin,
  preHairpin,
  preLb,
  preStateful,
} from './switch-lb.ts';

type S = StageRun<SwitchDp>;

const builtin = (priority: number, match: string): TraceRule => ({ kind: 'builtin', priority, match });

/** ls_in_check_port_sec (+ ls_in_apply_port_sec). */
function checkInPortSec(s: S): 'next' | 'stop' {
  const { ctx } = s;
  const p = ctx.packet;
  if (isMcastMac(p['eth.src'])) return s.drop('multicast source MAC', builtin(100, 'eth.src[40]'));
  if (p['vlan.tci'] !== undefined && (p['vlan.tci'] & 0x1000) !== 0)
    return s.drop('VLAN-tagged frame', builtin(100, 'vlan.present'));
  const port = s.port(ctx.inport);
  if (port?.kind !== 'lsp') return s.drop(`unknown inport ${ctx.inport}`);
  if (!port.enabled) {
    ctx.sw.portSecDrop = true;
    return 'next';
  }
  ctx.sw.portSecDrop = !inPortSecurityAllows(port.portSecurity, p);
  return 'next';
}

function applyInPortSec(s: S): 'next' | 'stop' {
  if (!s.ctx.sw.portSecDrop) return 'next';
  const port = s.port(s.ctx.inport);
  const why =
    port?.kind === 'lsp' && !port.enabled ? `port ${s.ctx.inport} is disabled` : `port security of ${s.ctx.inport}`;
  return s.drop(why, { kind: 'port-security', priority: 50, match: 'reg0[15] == 1', key: s.ctx.inport });
}

/**
 * ls_in_lookup_fdb + ls_in_put_fdb: a port that learns MACs (learnsFdb)
 * teaches the switch its packet's source MAC unless it already owns it
 * (`reg0[11] = lookup_fdb(inport, eth.src)`, then `put_fdb(inport,
 * eth.src)`); later packets to that MAC go to it (switch-l2.ts, get_fdb).
 */
function putFdb(s: S): 'next' {
  const port = s.port(s.ctx.inport);
  if (port?.kind !== 'lsp' || !port.learnsFdb) return 'next';
  const key = fdbKey(s.dp.name, s.ctx.packet['eth.src']);
  if (s.run.ct.fdb(key) === port.name) return 'next';
  s.run.ct.learnFdb(key, port.name);
  if (s.tracing)
    s.record({
      rule: builtin(100, `inport == ${JSON.stringify(port.name)} && reg0[11] == 0`),
      action: 'put_fdb(inport, eth.src)',
      note: 'the source MAC is learned on this port for later packets',
    });
  return 'next';
}

/** ls_out_check_port_sec (+ ls_out_apply_port_sec), then output. */
function checkOutPortSec(s: S): 'next' | 'stop' {
  const { ctx } = s;
  const port = s.port(ctx.outport);
  if (port?.kind !== 'lsp') return s.drop(`unknown outport ${ctx.outport}`);
  if (!port.enabled)
    return s.drop(`port ${port.name} is disabled`, builtin(150, `outport == ${JSON.stringify(port.name)}`));
  if (!isEthMcast(ctx.packet) && !outPortSecurityAllows(port.portSecurity, ctx.packet)) {
    s.stage = 'ls_out_apply_port_sec';
    return s.drop(`port security of ${port.name}`, {
      kind: 'port-security',
      priority: 50,
      match: 'reg0[15] == 1',
      key: port.name,
    });
  }
  return 'next';
}

/** ls_out_apply_port_sec: `output` — to a VIF (the end) or across a patch to a router. */
function output(s: S): 'next' | 'stop' {
  const { ctx } = s;
  const port = s.port(ctx.outport);
  if (port?.kind !== 'lsp') return 'stop';
  if (port.type === 'router' && port.routerPort !== undefined) {
    if (s.tracing) s.record({ action: `output to "${port.name}" (patch to router port ${port.routerPort})` });
    crossPatch(s, port.name);
    return 'stop';
  }
  if (s.tracing) s.record({ action: `output to "${port.name}"${port.type ? `, type "${port.type}"` : ''}` });
  s.run.outputs.push({
    port: port.name,
    datapath: s.dp.name,
    // As it leaves: NAT the flow did not see is on it (PipelineCtx.wire).
    packet: publicPacket(ctx.wire()),
    ...(s.ctx.generated ? { generated: s.ctx.generated } : {}),
  });
  return 'stop';
}

// `needed` may read only hasStatefulAcl, hasAcls, hasLbVip and whether there are QoS rules (plansFor keys on them).
/** A switch with stateful ACLs or a VIP sends packets through conntrack and the ACL hint/stateful stages. */
const stateful = (dp: SwitchDp): boolean => dp.hasStatefulAcl || dp.hasLbVip;
const anyAcl = (dp: SwitchDp): boolean => dp.hasAcls || dp.hasLbVip;
const lb = (dp: SwitchDp): boolean => dp.hasLbVip;
const ALWAYS = (): boolean => true;

export const SWITCH_INGRESS: readonly SwitchStage[] = [
  { name: 'ls_in_check_port_sec', run: checkInPortSec, needed: ALWAYS },
  { name: 'ls_in_apply_port_sec', run: applyInPortSec, needed: ALWAYS },
  { name: 'ls_in_put_fdb', run: putFdb, needed: ALWAYS },
  { name: 'ls_in_pre_acl', run: preAcl, needed: stateful },
  // Ingress pre-LB only marks for NAT (with a VIP); its router-port branch only records.
  { name: 'ls_in_pre_lb', run: preLb, needed: lb },
  { name: 'ls_in_pre_stateful', run: preStateful, needed: stateful },
  { name: 'ls_in_acl_hint', run: aclHint, needed: stateful },
  { name: 'ls_in_acl', run: aclStage('in'), needed: anyAcl },
  { name: 'ls_in_qos_mark', run: qosMark, needed: (dp) => dp.qos.in.length > 0 },
  { name: 'ls_in_lb_aff_check', run: lbAffCheck, needed: lb },
  { name: 'ls_in_lb', run: lbStage, needed: lb },
  { name: 'ls_in_lb_aff_learn', run: lbAffLearn, needed: lb },
  { name: 'ls_in_pre_hairpin', run: preHairpin, needed: lb },
  { name: 'ls_in_nat_hairpin', run: natHairpin, needed: lb },
  { name: 'ls_in_hairpin', run: hairpinStage, needed: lb },
  { name: 'ls_in_acl_after_lb', run: aclStage('after_lb'), needed: anyAcl },
  { name: 'ls_in_stateful', run: statefulStage, needed: stateful },
  { name: 'ls_in_arp_rsp', run: arpRsp, needed: ALWAYS },
  { name: 'ls_in_l2_lkup', run: l2Lookup, needed: ALWAYS },
];

export const SWITCH_EGRESS: readonly SwitchStage[] = [
  { name: 'ls_out_pre_acl', run: preAcl, needed: stateful },
  // Egress pre-LB may clear the ct state of packets to a router or localnet port: always run.
  { name: 'ls_out_pre_lb', run: preLb, needed: ALWAYS },
  { name: 'ls_out_pre_stateful', run: preStateful, needed: stateful },
  { name: 'ls_out_acl_hint', run: aclHint, needed: stateful },
  { name: 'ls_out_acl', run: aclStage('out'), needed: anyAcl },
  { name: 'ls_out_qos_mark', run: qosMark, needed: (dp) => dp.qos.out.length > 0 },
  { name: 'ls_out_stateful', run: statefulStage, needed: stateful },
  { name: 'ls_out_check_port_sec', run: checkOutPortSec, needed: ALWAYS },
  { name: 'ls_out_apply_port_sec', run: output, needed: ALWAYS },
];

interface SwitchPlans {
  readonly ingress: Plan<SwitchDp>;
  readonly egress: Plan<SwitchDp>;
}

/** Traced passes walk every stage, so the trace shows each one that speaks. */
const TRACED: SwitchPlans = { ingress: planOf(SWITCH_INGRESS), egress: planOf(SWITCH_EGRESS) };
/** Untraced plans by the features `needed` reads (switches alike in these have the same plan). */
const untraced: (SwitchPlans | undefined)[] = [];

function plansFor(dp: SwitchDp): SwitchPlans {
  const features =
    (dp.hasStatefulAcl ? 1 : 0) |
    (dp.hasAcls ? 2 : 0) |
    (dp.hasLbVip ? 4 : 0) |
    (dp.qos.in.length > 0 ? 8 : 0) |
    (dp.qos.out.length > 0 ? 16 : 0);
  let p = untraced[features];
  if (p === undefined) {
    p = { ingress: planOf(SWITCH_INGRESS, dp), egress: planOf(SWITCH_EGRESS, dp) };
    untraced[features] = p;
  }
  return p;
}

export function runSwitch(s: S): void {
  const plans = s.tracing ? TRACED : plansFor(s.dp);
  runPipeline(s.job.pipeline === 'ingress' ? plans.ingress : plans.egress, s);
}
