/**
 * The switch's L2 stages as northd 23.03 builds them:
 *
 * - ls_in_arp_rsp (build_lswitch_arp_nd_responder_known_ips): ARP requests
 *   and neighbour solicitations for a known address of another port are
 *   answered in place (the owner's own requests are forwarded, and nothing
 *   arriving on a localnet port is answered);
 * - ls_in_l2_lkup (build_lswitch_ip_unicast_lookup, ..._bmcast,
 *   build_lswitch_rport_arp_req_flows): ARP/NS for an address a router port
 *   owns go to that router port and to the non-router ports; router-sourced
 *   ARP/NS flood to non-router ports; multicast floods; unicast goes to the
 *   port owning the destination MAC;
 * - ls_in_l2_unknown: unknown unicast goes to the port that learned the MAC (get_fdb), else to
 *   the `unknown` ports, or drops.
 */
import { type IpKey, ipKey } from '../compile/addresses.ts';
import type { SwitchDp, SwitchPortInfo } from '../compile/types.ts';
import { isArp, isEthMcast, isNdNs, type Packet } from '../../model/packet/packet.ts';
import { solicitedNode } from '../../model/packet/build.ts';
import { FLAG_LOOPBACK } from './context.ts';
import { fdbKey } from '../conntrack/state.ts';
import { arpReplyTo, ndNaTo } from './generate.ts';
import { isLocalnetPort } from './switch-acl.ts';
import { type GeneratedKind, makeJob, type StageRun } from './run.ts';
import type { TraceRule } from '../trace.ts';

type S = StageRun<SwitchDp>;

const builtin = (priority: number, match: string): TraceRule => ({ kind: 'builtin', priority, match });

function answer(s: S, reply: Packet, kind: GeneratedKind, rule: TraceRule): 'stop' {
  const before = s.ctx.packet;
  s.ctx.packet = reply;
  s.ctx.outport = s.ctx.inport;
  s.ctx.setFlag(FLAG_LOOPBACK);
  if (s.tracing) s.record({ rule, action: `${kind}; outport = inport; output`, before });
  s.spawn({
    dp: s.dp,
    pipeline: 'egress',
    inport: s.ctx.inport,
    outport: s.ctx.inport,
    packet: reply,
    carry: s.ctx.carry(),
    generated: kind,
    depth: s.job.depth,
  });
  return 'stop';
}

/** ls_in_arp_rsp: ARP/ND responder for known addresses. */
export function arpRsp(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  if (isLocalnetPort(s, ctx.inport)) return 'next';
  if (isArp(p) && p['arp.op'] === 1) {
    const tpa = p['arp.tpa'] ?? 0;
    const t = dp.arpTargets.get(tpa);
    if (t === undefined || t.port === ctx.inport) return 'next';
    return answer(
      s,
      arpReplyTo(p, t.mac, tpa),
      'arp-reply',
      builtin(50, `arp.tpa == ${tpa} && arp.op == 1 (port ${t.port})`),
    );
  }
  if (isNdNs(p)) {
    const target = p['nd.target'] ?? 0n;
    const t = dp.ndTargets.get(target);
    const dst = p['ip6.dst'];
    if (t === undefined || t.port === ctx.inport || (dst !== target && dst !== solicitedNode(target))) return 'next';
    return answer(
      s,
      ndNaTo(p, t.mac, target),
      'nd-na',
      builtin(50, `nd_ns && nd.target == known address of ${t.port}`),
    );
  }
  return 'next';
}

function portInfo(s: S, name: string): SwitchPortInfo | undefined {
  const p = s.port(name);
  return p?.kind === 'lsp' ? p : undefined;
}

/** Hand the packet to the egress pipeline of each port (skipping the inport unless loopback). */
type Describe = () => { note: string; rule: TraceRule };
const NO_DESCRIPTION: Describe = () => ({ note: '', rule: builtin(0, '') });

/** `known`: the port info of a single target, handed to its pass (no lookup by name there). */
function outputTo(s: S, ports: readonly string[], describe: Describe, known?: SwitchPortInfo): 'stop' {
  const { ctx } = s;
  const loopback = ctx.hasFlag(FLAG_LOOPBACK);
  const targets =
    ports.length === 1 && (ports[0] !== ctx.inport || loopback)
      ? ports
      : ports.filter((p) => p !== ctx.inport || loopback);
  if (s.tracing) {
    const d = describe();
    s.record({
      rule: d.rule,
      action: `output to ${d.note}`,
      note: targets.length ? `ports ${targets.join(', ')}` : 'no ports',
    });
  }
  if (targets.length === 0 && ports.length > 0) {
    s.run.drops.push({ datapath: s.dp.name, stage: s.stage, reason: 'inport == outport && !flags.loopback' });
  }
  const carry = ctx.carry();
  const depth = s.job.depth + (targets.length > 1 ? 1 : 0);
  const inInfo = s.port(ctx.inport);
  for (let i = targets.length - 1; i >= 0; i--) {
    const outport = targets[i]!;
    const outInfo = known !== undefined && known.name === outport ? known : undefined;
    s.run.push(
      makeJob(
        { dp: s.dp, pipeline: 'egress', inport: ctx.inport, outport, packet: ctx.packet, carry, inInfo, outInfo },
        depth,
        ctx.generated,
      ),
    );
  }
  return 'stop';
}

function floodPorts(s: S, l2Only: boolean): string[] {
  return s.dp.ports.filter((name) => {
    const p = portInfo(s, name);
    return p?.enabled && (!l2Only || p.type !== 'router');
  });
}

/** The address an ARP request or NS asks about; NaN (no address's key) when the field is missing. */
function requestedAddress(p: Packet): IpKey | undefined {
  if (isArp(p) && p['arp.op'] === 1) return keyOrNaN(p['arp.tpa']);
  if (isNdNs(p)) return keyOrNaN(p['nd.target']);
  return undefined;
}

const keyOrNaN = (ip: number | bigint | undefined): IpKey => (ip === undefined ? Number.NaN : ipKey(ip));

/** Whether a router port's MAC lookup is conditioned on chassis residency (DGP peer on a switch with localnet). */
function routerPortResident(s: S, port: SwitchPortInfo): boolean {
  if (port.type !== 'router' || port.routerPort === undefined || s.dp.localnetPorts.length === 0) return true;
  const rp = s.port(port.routerPort);
  if (rp?.kind !== 'lrp' || !rp.isDgp) return true;
  return (s.net.options.isChassisResident ?? (() => true))(rp.crName!);
}

/** ls_in_l2_lkup and ls_in_l2_unknown. */
export function l2Lookup(s: S): 'next' | 'stop' {
  const { dp, ctx } = s;
  const p = ctx.packet;
  const asked = requestedAddress(p);
  if (asked !== undefined) {
    const owner = dp.routerOwnedIPs.get(asked);
    if (owner !== undefined) {
      return outputTo(
        s,
        [owner, ...floodPorts(s, true).filter((x) => x !== owner)],
        s.tracing
          ? () => ({
              note: `router port ${owner} and _MC_flood_l2`,
              rule: builtin(80, 'arp.op == 1 / nd_ns for a router-owned address'),
            })
          : NO_DESCRIPTION,
      );
    }
    if (dp.routerMacs.has(p['eth.src'])) {
      return outputTo(
        s,
        floodPorts(s, true),
        s.tracing
          ? () => ({ note: '_MC_flood_l2', rule: builtin(75, 'eth.src == router MAC && (arp.op == 1 || nd_ns)') })
          : NO_DESCRIPTION,
      );
    }
  }
  if (isEthMcast(p))
    return outputTo(
      s,
      floodPorts(s, false),
      s.tracing ? () => ({ note: '_MC_flood', rule: builtin(70, 'eth.mcast') }) : NO_DESCRIPTION,
    );
  const port = dp.macToPort.get(p['eth.dst']) ?? undefined;
  if (port !== undefined && routerPortResident(s, port)) {
    if (!port.enabled) return s.drop(`port ${port.name} is disabled`, builtin(50, `eth.dst == MAC of ${port.name}`));
    ctx.outport = port.name;
    return outputTo(
      s,
      [port.name],
      s.tracing ? () => ({ note: port.name, rule: builtin(50, `eth.dst == MAC of ${port.name}`) }) : NO_DESCRIPTION,
      port,
    );
  }
  const nat = dp.natMacs.get(p['eth.dst']);
  if (nat !== undefined && (s.net.options.isChassisResident ?? (() => true))(nat.logicalPort)) {
    ctx.outport = nat.port;
    return outputTo(
      s,
      [nat.port],
      s.tracing
        ? () => ({
            note: nat.port,
            rule: builtin(50, `eth.dst == external_mac && is_chassis_resident("${nat.logicalPort}")`),
          })
        : NO_DESCRIPTION,
    );
  }
  // Priority 0: `outport = get_fdb(eth.dst); next;`, a MAC an earlier packet taught a port (ls_in_put_fdb).
  const learned = s.run.ct.fdb(fdbKey(dp.name, p['eth.dst']));
  const learnedPort = learned === undefined ? undefined : s.port(learned);
  if (learnedPort?.kind === 'lsp' && learnedPort.switch === dp.name) {
    ctx.outport = learnedPort.name;
    s.stage = 'ls_in_l2_unknown';
    return outputTo(
      s,
      [learnedPort.name],
      s.tracing
        ? () => ({ note: `${learnedPort.name} (learned MAC)`, rule: builtin(0, 'outport = get_fdb(eth.dst)') })
        : NO_DESCRIPTION,
      learnedPort,
    );
  }
  s.stage = 'ls_in_l2_unknown';
  if (dp.unknownPorts.length > 0)
    return outputTo(
      s,
      dp.unknownPorts,
      s.tracing ? () => ({ note: '_MC_unknown', rule: builtin(50, 'outport == "none"') }) : NO_DESCRIPTION,
    );
  return s.drop(
    'no port owns the destination MAC and no port has "unknown" addresses',
    builtin(50, 'outport == "none"'),
  );
}
