/**
 * The logical switch pipelines, stage by stage, named as northd 23.03 names
 * them. Stages that never change a verdict or a packet here (FDB learning,
 * DHCP/DNS responders, LB affinity, QoS meters, external ports) are left out:
 * for the packets the simulator models they only say `next`.
 */
import type { SwitchDp } from '../compile/types.ts';
import { isEthMcast } from '../packet/packet.ts';
import type { TraceRule } from '../trace.ts';
import { inPortSecurityAllows, outPortSecurityAllows } from './port-security.ts';
import { patchToRouter } from './patch.ts';
import { runPipeline, type StageRun, type SwitchStage } from './run.ts';
import { aclHint, aclStage, preAcl, qosMark, statefulStage } from './switch-acl.ts';
import { arpRsp, l2Lookup } from './switch-l2.ts';
import { hairpinStage, lbStage, natHairpin, preHairpin, preLb, preStateful } from './switch-lb.ts';

type S = StageRun<SwitchDp>;

const builtin = (priority: number, match: string): TraceRule => ({ kind: 'builtin', priority, match });

/** ls_in_check_port_sec (+ ls_in_apply_port_sec). */
function checkInPortSec(s: S): 'next' | 'stop' {
  const { ctx } = s;
  const p = ctx.packet;
  if (Math.floor(p['eth.src'] / 0x10000000000) % 2 === 1) return s.drop('multicast source MAC', builtin(100, 'eth.src[40]'));
  if (p['vlan.tci'] !== undefined && (p['vlan.tci'] & 0x1000) !== 0) return s.drop('VLAN-tagged frame', builtin(100, 'vlan.present'));
  const port = s.net.ports.get(ctx.inport);
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
  const port = s.net.ports.get(s.ctx.inport);
  const why = port?.kind === 'lsp' && !port.enabled ? `port ${s.ctx.inport} is disabled` : `port security of ${s.ctx.inport}`;
  return s.drop(why, { kind: 'port-security', priority: 50, match: 'reg0[15] == 1', key: s.ctx.inport });
}

/** ls_out_check_port_sec (+ ls_out_apply_port_sec), then output. */
function checkOutPortSec(s: S): 'next' | 'stop' {
  const { ctx } = s;
  const port = s.net.ports.get(ctx.outport);
  if (port?.kind !== 'lsp') return s.drop(`unknown outport ${ctx.outport}`);
  if (!port.enabled) return s.drop(`port ${port.name} is disabled`, builtin(150, `outport == ${JSON.stringify(port.name)}`));
  if (!isEthMcast(ctx.packet) && !outPortSecurityAllows(port.portSecurity, ctx.packet)) {
    s.stage = 'ls_out_apply_port_sec';
    return s.drop(`port security of ${port.name}`, { kind: 'port-security', priority: 50, match: 'reg0[15] == 1', key: port.name });
  }
  return 'next';
}

/** ls_out_apply_port_sec: `output` — to a VIF (the end) or across a patch to a router. */
function output(s: S): 'next' | 'stop' {
  const { ctx } = s;
  const port = s.net.ports.get(ctx.outport);
  if (port?.kind !== 'lsp') return 'stop';
  if (port.type === 'router' && port.routerPort !== undefined) {
    s.record({ action: `output to "${port.name}" (patch to router port ${port.routerPort})` });
    patchToRouter(s, port.routerPort);
    return 'stop';
  }
  s.record({ action: `output to "${port.name}"${port.type ? `, type "${port.type}"` : ''}` });
  s.run.outputs.push({
    port: port.name,
    datapath: s.dp.name,
    packet: ctx.packet,
    ...(s.ctx.generated ? { generated: s.ctx.generated } : {}),
  });
  return 'stop';
}

export const SWITCH_INGRESS: readonly SwitchStage[] = [
  { name: 'ls_in_check_port_sec', run: checkInPortSec },
  { name: 'ls_in_apply_port_sec', run: applyInPortSec },
  { name: 'ls_in_pre_acl', run: preAcl },
  { name: 'ls_in_pre_lb', run: preLb },
  { name: 'ls_in_pre_stateful', run: preStateful },
  { name: 'ls_in_acl_hint', run: aclHint },
  { name: 'ls_in_acl', run: aclStage('in') },
  { name: 'ls_in_qos_mark', run: qosMark },
  { name: 'ls_in_lb', run: lbStage },
  { name: 'ls_in_pre_hairpin', run: preHairpin },
  { name: 'ls_in_nat_hairpin', run: natHairpin },
  { name: 'ls_in_hairpin', run: hairpinStage },
  { name: 'ls_in_acl_after_lb', run: aclStage('after_lb') },
  { name: 'ls_in_stateful', run: statefulStage },
  { name: 'ls_in_arp_rsp', run: arpRsp },
  { name: 'ls_in_l2_lkup', run: l2Lookup },
];

export const SWITCH_EGRESS: readonly SwitchStage[] = [
  { name: 'ls_out_pre_acl', run: preAcl },
  { name: 'ls_out_pre_lb', run: preLb },
  { name: 'ls_out_pre_stateful', run: preStateful },
  { name: 'ls_out_acl_hint', run: aclHint },
  { name: 'ls_out_acl', run: aclStage('out') },
  { name: 'ls_out_qos_mark', run: qosMark },
  { name: 'ls_out_stateful', run: statefulStage },
  { name: 'ls_out_check_port_sec', run: checkOutPortSec },
  { name: 'ls_out_apply_port_sec', run: output },
];

export function runSwitch(s: S): void {
  runPipeline(s.job.pipeline === 'ingress' ? SWITCH_INGRESS : SWITCH_EGRESS, s);
}
