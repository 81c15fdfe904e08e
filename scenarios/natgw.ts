/**
 * Probes through a VPC NAT gateway (docs/scenarios.md, "VPC NAT gateways").
 * OVN takes a pod's packet to the outside as far as the gateway pod's port
 * (the VPC's routes to its lanIp); the NAT appliance model
 * (sim/appliance/) continues from there, applying the iptables rules of the
 * gateway's ready IptablesEIP/FIP/SNAT/DNAT objects, and says whether the
 * outside can answer. A probe from an outside address to an EIP goes the
 * other way: the appliance first (DNAT), then OVN from the gateway pod's
 * port to the pod. Worlds call `afterGateway` on the packet OVN delivered
 * (the simulator's, or ovn-trace's output), so both give the appliance the
 * same packet.
 */
import type { KubeObject } from '../kube/cluster/types.ts';
import {
  decodeIptablesEIP,
  decodeIptablesRule,
  decodeVpcNatGateway,
  type IptablesRuleView,
} from '../kube/objects/vpc-nat-gateway.ts';
import type { Topology } from '../model/topology/index.ts';
import { l4ProtoOf, type Packet } from '../model/packet/index.ts';
import { tryParseCIDR } from '../model/addr/index.ts';
import { fromLan, fromOutside, type NatAppliance } from '../sim/appliance/nat-gateway.ts';
import type { NatGatewayRules } from '../sim/appliance/iptables.ts';
import type { TraceStage } from '../sim/trace.ts';

/** The kinds a NAT gateway's appliance is built from (read each step). */
export const NAT_GATEWAY_KINDS = [
  'VpcNatGateway',
  'IptablesEIP',
  'IptablesFIPRule',
  'IptablesSnatRule',
  'IptablesDnatRule',
] as const;

interface PodLike {
  readonly namespace: string;
  readonly name: string;
  readonly port: string;
  readonly mac: string;
  readonly ips: readonly string[];
  readonly subnet: string;
}

const ready = (o: KubeObject) => (o.status as { ready?: unknown } | undefined)?.ready === true;

/** The rules a gateway's pod holds: the ready objects', by the EIP address each resolved to (status). */
function rulesOf(gw: string, objects: { readonly [kind: string]: readonly KubeObject[] | undefined }): NatGatewayRules {
  const eipIp = new Map<string, string>();
  const eips: { name: string; ip: string }[] = [];
  for (const o of objects.IptablesEIP ?? []) {
    const e = decodeIptablesEIP(o).value;
    if (!ready(o) || e.natGwDp !== gw) continue;
    eipIp.set(e.name, e.v4ip);
    eips.push({ name: e.name, ip: e.v4ip });
  }
  const rules = (kind: string): IptablesRuleView[] =>
    (objects[kind] ?? [])
      .filter((o) => ready(o))
      .map((o) => decodeIptablesRule(o).value)
      .filter((r) => eipIp.has(r.eip));
  const out: {
    fips: NatGatewayRules['fips'][number][];
    snats: NatGatewayRules['snats'][number][];
    dnats: NatGatewayRules['dnats'][number][];
  } = {
    fips: [],
    snats: [],
    dnats: [],
  };
  for (const r of [...rules('IptablesFIPRule'), ...rules('IptablesSnatRule'), ...rules('IptablesDnatRule')]) {
    const eip = eipIp.get(r.eip)!;
    if (r.kind === 'IptablesFIPRule') out.fips.push({ name: r.name, eip, internalIp: r.internalIp });
    else if (r.kind === 'IptablesSnatRule') out.snats.push({ name: r.name, eip, internalCIDR: r.internalCIDR });
    else
      out.dnats.push({
        name: r.name,
        eip,
        externalPort: Number(r.externalPort),
        protocol: r.protocol === 'udp' ? 'udp' : 'tcp',
        internalIp: r.internalIp,
        internalPort: Number(r.internalPort),
      });
  }
  return { eips, ...out };
}

/**
 * The NAT gateways whose pod has its port, as appliances.
 *
 * @example natAppliances(objects, topology, pods, subnets)[0]?.port // 'vpc-nat-gw-gw1-0.kube-system'
 */
export function natAppliances(
  objects: { readonly [kind: string]: readonly KubeObject[] | undefined },
  topology: Topology,
  pods: ReadonlyMap<string, PodLike>,
  subnets: ReadonlyMap<string, { readonly router: string; readonly cidrs: readonly string[] }>,
): NatAppliance[] {
  const out: NatAppliance[] = [];
  for (const o of objects.VpcNatGateway ?? []) {
    const gw = decodeVpcNatGateway(o).value;
    const pod = [...pods.values()].find((p) => p.name === `vpc-nat-gw-${gw.name}-0` && p.ips.includes(gw.lanIp));
    const rp = topology.routerPort.get(`${gw.vpc}-${gw.subnet}`);
    const own = subnets.get(gw.subnet);
    if (pod === undefined || rp === undefined || own === undefined) continue;
    const v4 = (c: string) => tryParseCIDR(c)?.family === 4;
    const neighbours = new Map<string, string>();
    for (const p of pods.values()) if (p.subnet === gw.subnet) for (const ip of p.ips) neighbours.set(ip, p.mac);
    out.push({
      name: gw.name,
      port: pod.port,
      mac: pod.mac,
      lanIp: gw.lanIp,
      subnetCidr: own.cidrs.find(v4) ?? own.cidrs[0]!,
      routerMac: rp.mac,
      routerIp:
        rp.networks.map((n) => n.split('/')[0]!).find((ip) => tryParseCIDR(ip, { allowBare: true })?.family === 4) ??
        '',
      vpcCidrs: [...subnets.entries()]
        .filter(([n, s]) => n !== gw.subnet && s.router === gw.vpc)
        .flatMap(([, s]) => s.cidrs.filter(v4)),
      neighbours,
      rules: rulesOf(gw.name, objects),
    });
  }
  return out;
}

/** What the appliance made of a packet OVN delivered to its port: the probe's verdict from there. */
export interface GatewayVerdict {
  readonly allowed: boolean;
  readonly reason?: string;
  /** Not modelled: a packet the gateway sends back into the VPC (hairpin to an EIP). */
  readonly unsure?: string;
  readonly stages: readonly TraceStage[];
  /** The outside answers (or the gateway itself does): the reply path through OVN is to be checked. */
  readonly needsReplyPath: boolean;
}

/**
 * The verdict past the gateway of an egress probe: out to the outside (UDP:
 * delivered; TCP, SCTP, ICMP: the outside answers only an EIP), or for the
 * gateway itself.
 *
 * @example afterGateway(app, delivered).allowed // true when a SNAT rule gave it an EIP
 */
export function afterGateway(app: NatAppliance, p: Packet): GatewayVerdict {
  const a = fromLan(app, p);
  switch (a.kind) {
    case 'outside':
      if (l4ProtoOf(p) === 'udp') return { allowed: true, stages: a.stages, needsReplyPath: false };
      return a.replies
        ? { allowed: true, stages: a.stages, needsReplyPath: true }
        : { allowed: false, reason: a.reason!, stages: a.stages, needsReplyPath: false };
    case 'local':
      return a.answered
        ? { allowed: true, stages: a.stages, needsReplyPath: true }
        : { allowed: false, reason: a.reason, stages: a.stages, needsReplyPath: false };
    case 'lan':
      return {
        allowed: false,
        unsure: `${app.name} sends the packet back into the VPC (hairpin through an EIP): not modelled`,
        stages: a.stages,
        needsReplyPath: false,
      };
    case 'dropped':
      return { allowed: false, reason: a.reason, stages: a.stages, needsReplyPath: false };
  }
}

/** An ingress probe's first leg: the appliance's DNAT, then the packet it hands OVN at its port, or why not. */
export function intoGateway(
  app: NatAppliance,
  p: Packet,
):
  | { readonly packet: Packet; readonly stages: readonly TraceStage[] }
  | { readonly reason: string; readonly answered: boolean } {
  const a = fromOutside(app, p);
  if (a.kind === 'lan') return { packet: a.packet, stages: a.stages };
  if (a.kind === 'local') return { reason: a.reason, answered: a.answered };
  if (a.kind === 'outside') return { reason: `${app.name} sends it back out to the outside`, answered: false };
  return { reason: a.reason, answered: false };
}

/** The probe's NAT gateway part, given where OVN delivered its packet: undefined when the probe has none. */
export function egressVerdict(
  r: { readonly natGateway?: { readonly direction: string; readonly appliances?: readonly NatAppliance[] } },
  port: string,
  p: Packet,
): GatewayVerdict | undefined {
  if (r.natGateway?.direction !== 'egress') return undefined;
  const app = r.natGateway.appliances?.find((a) => a.port === port);
  return app === undefined ? undefined : afterGateway(app, p);
}
