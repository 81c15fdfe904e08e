/**
 * Kube-OVN's annotation keys (pkg/util/const.go) kovn reads on more than one
 * kind, and the helpers the tables use.
 */
import type { AnnotationSupport } from '../support.ts';

export const OVN = 'ovn.kubernetes.io/';

export const acted = (key: string, note?: string): AnnotationSupport => ({
  key,
  state: 'acted',
  ...(note ? { note } : {}),
});

export const ignored = (
  key: string,
  note: string,
  extra: Partial<Omit<AnnotationSupport, 'key' | 'state' | 'note'>> = {},
): AnnotationSupport => ({ key, state: 'ignored', note, ...extra });

/** Written by the controller; read back as Kube-OVN reads them (an input's own are its previous state). */
export const output = (key: string): AnnotationSupport => acted(key, 'written by the controller');

/** The keys an attachment network's provider writes and reads, `<nad>.<ns>[.ovn].kubernetes.io/<key>`. */
const ATTACHMENT_KEYS =
  'allocated|routed|routes|mac_address|ip_address|ip_family|cidr|gateway|ip_pool|logical_switch|logical_router|vlan_id|ingress_rate|egress_rate|security_groups|default_route|port_security|port_vips|layer2_forward|provider_network|pod_nic_type|vf|vf_representor|mirror|latency|limit|loss|jitter|dhcp-v4-options|dhcp-v6-options|activation_strategy|virtualmachine|vpc_cidrs';

/** The keys of a kube-ovn attachment (`<nad>.<ns>.ovn`) kovn reads and writes (controller/handlers/attachment.ts). */
const ATTACHMENT_ACTED_KEYS =
  'allocated|routed|mac_address|ip_address|cidr|gateway|logical_switch|logical_router|pod_nic_type';

export const ATTACHMENT_ACTED: AnnotationSupport = {
  key: '<nad>.<ns>.ovn.kubernetes.io/{ip_address,mac_address,logical_switch,...} of a kube-ovn attachment',
  match: new RegExp(`^[^/]+\\.ovn\\.kubernetes\\.io/(${ATTACHMENT_ACTED_KEYS})$`),
  state: 'acted',
  note: "the attachment's address and subnet asked for, and what the controller writes for its port <pod>.<ns>.<provider>",
};

export const ATTACHMENT: AnnotationSupport = {
  key: '<provider>.kubernetes.io/* of an attachment network',
  match: new RegExp(`^(?!ovn\\.kubernetes\\.io/)[^/]+\\.kubernetes\\.io/(${ATTACHMENT_KEYS})$`),
  state: 'ignored',
  note: "not acted on for an attachment: only a kube-ovn attachment's address, MAC and subnet are",
  verdict: 'none',
};

export const NO_VERDICT = { verdict: 'none' } as const;
