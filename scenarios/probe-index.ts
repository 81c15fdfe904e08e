/**
 * What probes resolve against (scenarios/probe.ts resolveProbe), read once
 * per step from what the controller built: pods (and their attachment
 * interfaces) by the annotations it wrote, Services by their cluster IPs and
 * EndpointSlices, nodes by their join port, subnets, VPC NAT gateways and the
 * scenario's physical hosts.
 */
import type { Topology } from '../model/topology/index.ts';
import type { KubeObject } from '../kube/cluster/types.ts';
import {
  attachmentProvider,
  decodeEndpointSlice,
  decodeNode,
  decodePod,
  decodeService,
  decodeSubnet,
  NETWORKS_ANNOTATION,
  type PodView,
  parseNetworks,
} from '../kube/objects/objects.ts';
import { decodeNodeNetwork, decodePodNetwork, podPortName } from '../kube/annotations.ts';
import type { ControllerSettings } from '../controller/config.ts';
import type { EgressGatewayInput, NatOutgoingInput } from '../controller/translate/subnet-gateway.ts';
import type { NatAppliance } from '../sim/appliance/nat-gateway.ts';
import { natAppliances } from './natgw.ts';
import { SWITCH_LB_VIP_ANNOTATION } from '../controller/translate/switch-lb-rule.ts';
import type { ScenarioHost } from './load.ts';

export interface ProbePod {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly port: string;
  readonly mac: string;
  readonly ips: readonly string[];
  readonly node: string;
  readonly subnet: string;
  readonly router: string;
}

export interface ServiceInfo {
  readonly key: string;
  readonly clusterIPs: readonly string[];
  readonly ports: readonly { readonly port: number; readonly protocol: string; readonly name?: string }[];
  /** Ready endpoint pod ports (`<pod>.<ns>`) per service port name. */
  readonly endpoints: ReadonlyMap<string, readonly { readonly port: string; readonly targetPort: number }[]>;
}

/** What the probes resolve against, read once per step. */
export interface ProbeIndex {
  readonly pods: ReadonlyMap<string, ProbePod>;
  readonly services: ReadonlyMap<string, ServiceInfo>;
  readonly nodes: ReadonlyMap<string, { readonly port: string; readonly mac: string; readonly ip: string }>;
  readonly topology: Topology;
  readonly settings: ControllerSettings;
  /** Subnet name → its router, CIDRs and what its gateway node's masquerade reads. */
  readonly subnets: ReadonlyMap<
    string,
    { readonly router: string; readonly cidrs: readonly string[] } & NatOutgoingInput & EgressGatewayInput
  >;
  /** Pods with an address but no node (pending: no node fits them): they have no interface. */
  readonly pending: ReadonlySet<string>;
  /**
   * Pods the controller gave no address (their Subnet, IPPool or annotations were refused; the
   * run's warnings say why): their CNI ADD would fail, so, as pending pods, they have no interface.
   */
  readonly unaddressed: ReadonlySet<string>;
  /** VPC NAT gateways whose pod has its port, as appliances (scenarios/natgw.ts). */
  readonly natGateways: readonly NatAppliance[];
  /** The scenario's physical hosts (`spec.hosts`). */
  readonly hosts: readonly ScenarioHost[];
}

export function buildIndex(
  objects: { readonly [kind: string]: readonly KubeObject[] },
  topology: Topology,
  settings: ControllerSettings,
  hosts: readonly ScenarioHost[] = [],
): ProbeIndex {
  const pods = new Map<string, ProbePod>();
  const pending = new Set<string>();
  const unaddressed = new Set<string>();
  for (const o of objects.Pod ?? []) {
    const p = decodePod(o).value;
    const d = decodePodNetwork(p.annotations);
    const key = `${p.namespace}/${p.name}`;
    if (!d.ok) {
      if (!p.hostNetwork) unaddressed.add(key);
      continue;
    }
    const net = d.value;
    if (p.nodeName === '') {
      pending.add(key);
      continue;
    }
    pods.set(key, {
      key,
      namespace: p.namespace,
      name: p.name,
      labels: p.labels,
      port: podPortName(p.name, p.namespace),
      mac: net.mac ?? '',
      ips: net.ips,
      node: p.nodeName,
      subnet: net.logicalSwitch ?? '',
      router: net.logicalRouter ?? settings.clusterRouter,
    });
  }
  for (const o of objects.Pod ?? []) addAttachments(pods, decodePod(o).value);
  const slices = (objects.EndpointSlice ?? []).map((o) => decodeEndpointSlice(o).value);
  const byIP = new Map<string, ProbePod>();
  for (const pod of pods.values()) for (const ip of pod.ips) if (!byIP.has(ip)) byIP.set(ip, pod);
  const services = new Map<string, ServiceInfo>();
  for (const o of objects.Service ?? []) {
    const s = decodeService(o).value;
    const key = `${s.namespace}/${s.name}`;
    const endpoints = new Map<string, { port: string; targetPort: number }[]>();
    for (const sl of slices) {
      if (sl.namespace !== s.namespace || sl.service !== s.name) continue;
      for (const sp of sl.ports) {
        if (sp.port === undefined) continue;
        const list = endpoints.get(sp.name ?? '') ?? [];
        for (const e of sl.endpoints) {
          if (!e.ready) continue;
          // An endpoint without a pod reference (a SwitchLBRule's `endpoints`): the pod holding its address.
          const port =
            e.targetPod !== undefined
              ? `${e.targetPod}.${s.namespace}`
              : e.addresses.map((a) => byIP.get(a)?.port).find((x) => x !== undefined);
          if (port !== undefined) list.push({ port, targetPort: sp.port });
        }
        endpoints.set(sp.name ?? '', list);
      }
    }
    // A SwitchLBRule's Service is headless: its VIPs are in its annotation (controller/translate/switch-lb-rule.ts).
    const slrVips = s.annotations[SWITCH_LB_VIP_ANNOTATION];
    const clusterIPs = slrVips ? slrVips.split(',').map((v) => v.trim()) : s.clusterIPs;
    services.set(key, { key, clusterIPs, ports: s.ports, endpoints });
  }
  const nodes = new Map<string, { port: string; mac: string; ip: string }>();
  for (const o of objects.Node ?? []) {
    const n = decodeNode(o).value;
    const d = decodeNodeNetwork(n.annotations);
    if (!d.ok) continue;
    nodes.set(n.name, { port: `node-${n.name}`, mac: d.value.mac ?? '', ip: d.value.ips[0]! });
  }
  const subnets = new Map<string, { router: string; cidrs: string[] } & NatOutgoingInput & EgressGatewayInput>();
  for (const o of objects.Subnet ?? []) {
    const s = decodeSubnet(o).value;
    subnets.set(s.name, {
      router: s.vpc || settings.clusterRouter,
      cidrs: s.cidrBlock.split(',').map((c) => c.trim()),
      natOutgoing: s.natOutgoing,
      natOutgoingPolicyRules: s.natOutgoingPolicyRules,
      externalEgressGateway: s.externalEgressGateway,
      policyRoutingPriority: s.policyRoutingPriority,
      policyRoutingTableID: s.policyRoutingTableID,
    });
  }
  const natGateways = natAppliances(objects, topology, pods, subnets);
  return { pods, services, nodes, topology, settings, subnets, pending, unaddressed, natGateways, hosts };
}

/**
 * A pod's attachment interfaces (Multus, kube-ovn type) as probe ends of their
 * own, `<ns>/<pod>@<nad-ns>/<nad>`, from the annotations the controller wrote
 * under the attachment's provider (controller/handlers/attachment.ts).
 */
function addAttachments(pods: Map<string, ProbePod>, p: PodView): void {
  const text = p.annotations[NETWORKS_ANNOTATION];
  if (!text || p.nodeName === '') return;
  const parsed = parseNetworks(text, p.namespace);
  if (!parsed.ok) return;
  for (const sel of parsed.value) {
    const provider = attachmentProvider(sel);
    const d = decodePodNetwork(p.annotations, provider);
    if (!d.ok) continue;
    const key = attachmentEnd(p.namespace, p.name, sel);
    pods.set(key, {
      key,
      namespace: p.namespace,
      name: p.name,
      labels: p.labels,
      port: podPortName(p.name, p.namespace, provider),
      mac: d.value.mac ?? '',
      ips: d.value.ips,
      node: p.nodeName,
      subnet: d.value.logicalSwitch ?? '',
      router: d.value.logicalRouter ?? '',
    });
  }
}

/** How a probe names a pod's attachment interface: `<ns>/<pod>@<nad-ns>/<nad>`. */
export const attachmentEnd = (ns: string, pod: string, nad: { namespace: string; name: string }): string =>
  `${ns}/${pod}@${nad.namespace}/${nad.name}`;
