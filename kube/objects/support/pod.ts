/**
 * Pod (v1): the fields and annotations Kube-OVN, or the Kubernetes network
 * model, acts on (see ../support.ts). Placement fields are honoured by the
 * in-memory cluster's scheduler (kube/cluster/scheduler.ts); against a real API
 * server they are the real scheduler's.
 */
import { type FieldSupport, type KindSupport, zero } from '../support.ts';
import { ATTACHMENT, ATTACHMENT_ACTED, acted, ignored, NO_VERDICT, OVN, output } from './annotations.ts';

const field = (path: string, note?: string): FieldSupport => ({ path, state: 'acted', ...(note ? { note } : {}) });
const QOS = "rates and netem are the node agent's (OVS QoS, tc), which changes no probe's verdict";
const VM = 'KubeVirt virtual machine handling is not modelled';

/** Every constraint `ScheduleAnyway`: a preference, no pod is left pending. */
const onlyPreferences = (v: unknown) =>
  zero(v) ||
  (Array.isArray(v) &&
    v.every(
      (c) =>
        typeof c === 'object' &&
        c !== null &&
        (c as { whenUnsatisfiable?: unknown }).whenUnsatisfiable === 'ScheduleAnyway',
    ));

export const POD_SUPPORT: KindSupport = {
  kind: 'Pod',
  apiVersion: 'v1',
  annotationPrefixes: [OVN],
  fields: [
    field('metadata.labels'),
    field('metadata.ownerReferences', 'a StatefulSet pod keeps its address for its successor'),
    field('spec.nodeName'),
    field('spec.hostNetwork', 'a host-network pod has no logical port, as in Kube-OVN'),
    field('spec.containers[].ports[].name'),
    field('spec.containers[].ports[].containerPort'),
    field('spec.containers[].ports[].protocol'),
    field('spec.nodeSelector'),
    field('spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution'),
    {
      path: 'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution',
      state: 'ignored',
      note: 'a preference: the scenario scheduler places pods round-robin among the nodes that fit',
      verdict: 'none',
    },
    {
      path: 'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution',
      state: 'ignored',
      note: 'inter-pod affinity is not honoured by the scenario scheduler: where it would leave the pod pending, kovn places it',
    },
    {
      path: 'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution',
      state: 'ignored',
      note: 'inter-pod anti-affinity is not honoured by the scenario scheduler: where it would leave the pod pending, kovn places it',
    },
    {
      path: 'spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution',
      state: 'ignored',
      note: 'a preference, not honoured by the scenario scheduler',
      verdict: 'none',
    },
    {
      path: 'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution',
      state: 'ignored',
      note: 'a preference, not honoured by the scenario scheduler',
      verdict: 'none',
    },
    field('spec.tolerations'),
    {
      path: 'spec.topologySpreadConstraints',
      state: 'ignored',
      note: 'not honoured by the scenario scheduler: where DoNotSchedule would leave the pod pending, kovn places it',
      inert: onlyPreferences,
    },
    field('status.phase', 'a Succeeded or Failed pod releases its address, as in Kube-OVN'),
    field('status.conditions', 'Ready decides whether the pod is a Service endpoint'),
    field('status.podIPs', "informational: the controller's IPAM and the ip_address annotation decide"),
  ],
  annotations: [
    acted(`${OVN}ip_address`, 'a static address (or "v4,v6")'),
    acted(`${OVN}mac_address`),
    acted(`${OVN}ip_pool`),
    acted(`${OVN}logical_switch`),
    acted(`${OVN}port_security`),
    acted(
      `${OVN}vpc_nat_gw`,
      "a VPC NAT gateway's pod (written on its StatefulSet's template): the NAT appliance model sits behind its port",
    ),
    output(`${OVN}allocated`),
    output(`${OVN}routed`),
    output(`${OVN}cidr`),
    output(`${OVN}gateway`),
    output(`${OVN}logical_router`),
    output(`${OVN}pod_nic_type`),
    acted(
      `${OVN}security_groups`,
      "the pod's port joins each group's port group and address sets, and the deny-all group while one of them exists",
    ),
    acted(
      `${OVN}ip_family`,
      'ipv4 or ipv6: on a dual-stack subnet the pod gets that family only; a subnet without it, another value or an ip_address of the other family refuse the pod (AcquireAddressFailed, ValidatePodNetworkFailed)',
    ),
    ignored(`${OVN}vip`, 'Vip objects are not modelled yet'),
    ignored(`${OVN}aaps`, 'allowed address pairs are not modelled yet'),
    ignored(`${OVN}port_vips`, 'extra port addresses are not modelled yet'),
    ignored(`${OVN}north_gateway`, "a pod's own north gateway is not modelled yet"),
    ignored(`${OVN}routes`, "the pod's own routes are the node agent's, not modelled yet"),
    ignored(`${OVN}default_route`, "the pod's own routes are the node agent's, not modelled yet"),
    ignored(`${OVN}eip`, "a pod's EIP (OVN NAT on the cluster router, Kube-OVN's enable-eip-snat) is not modelled yet"),
    ignored(
      `${OVN}snat`,
      "a pod's SNAT (OVN NAT on the cluster router, Kube-OVN's enable-eip-snat) is not modelled yet",
    ),
    ignored(`${OVN}layer2_forward`, 'layer-2 forwarding of unknown addresses is not modelled yet'),
    acted(`${OVN}provider_network`, "written by the controller on an underlay subnet's pods (its Vlan's provider)"),
    acted(`${OVN}vlan_id`, "written by the controller on an underlay subnet's pods (its Vlan's id)"),
    ignored(`${OVN}virtualmachine`, VM),
    ignored(`${OVN}activation_strategy`, VM, NO_VERDICT),
    ignored(`${OVN}ingress_rate`, QOS, NO_VERDICT),
    ignored(`${OVN}egress_rate`, QOS, NO_VERDICT),
    ignored(`${OVN}ingress_burst`, QOS, NO_VERDICT),
    ignored(`${OVN}egress_burst`, QOS, NO_VERDICT),
    ignored(`${OVN}latency`, QOS, NO_VERDICT),
    ignored(`${OVN}limit`, QOS, NO_VERDICT),
    ignored(`${OVN}loss`, QOS, NO_VERDICT),
    ignored(`${OVN}jitter`, QOS, NO_VERDICT),
    ignored(`${OVN}mirror`, 'traffic mirroring changes no verdict', NO_VERDICT),
    ignored(`${OVN}bgp`, 'BGP announcement is outside the cluster network', NO_VERDICT),
    ignored(`${OVN}dhcp-v4-options`, 'DHCP options change no probe', NO_VERDICT),
    ignored(`${OVN}dhcp-v6-options`, 'DHCP options change no probe', NO_VERDICT),
    ignored(`${OVN}vf`, "SR-IOV is the node agent's", NO_VERDICT),
    ignored(`${OVN}vf_representor`, "SR-IOV is the node agent's", NO_VERDICT),
    ignored(`${OVN}chassis`, "the chassis binding is ovn-controller's", NO_VERDICT),
    ignored(`${OVN}generate-hash`, 'bookkeeping', NO_VERDICT),
    acted(
      'k8s.v1.cni.cncf.io/networks',
      'kube-ovn attachments: one more address and port each on the Subnet of provider <nad>.<ns>.ovn; probes name the interface <ns>/<pod>@<nad-ns>/<nad>; other CNI types are left to their CNI',
    ),
    ignored(
      'v1.multus-cni.io/default-network',
      'a Multus default network replaces the primary interface, which is not modelled',
    ),
    ATTACHMENT_ACTED,
    ATTACHMENT,
  ],
};
