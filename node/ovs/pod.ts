/**
 * A pod's interface as an OVS port, from the annotations the controller
 * wrote (kube/annotations.ts): the port the node agent adds to br-int for
 * the host end of the pod's veth pair, with the external_ids Kube-OVN's CNI
 * sets (pkg/daemon/ovs_linux.go configureNic): iface-id, vendor, pod_name,
 * pod_namespace, pod_netns, ip. Whether to plumb it yet (the `routed`
 * annotation) is the agent's call, not this function's.
 */
import { type Decoded, OVN_PROVIDER, decodePodNetwork, podPortName } from '../../kube/annotations.ts';
import type { PortSpec } from './ports.ts';

export interface PodInterface {
  readonly pod: string;
  readonly namespace: string;
  /** Default `ovn`, the default network. */
  readonly provider?: string;
  /** The host end of the pod's veth pair: the OVS port and interface name. */
  readonly hostNic: string;
  /** The pod's network namespace (a path), recorded as pod_netns. */
  readonly netns?: string;
}

/** The vendor Kube-OVN's CNI writes on its interfaces (util.CniTypeName). */
export const CNI_VENDOR = 'kube-ovn';

/**
 * @example
 * podPortSpec({ pod: 'web-0', namespace: 'default', hostNic: 'a1b2c3_h' }, pod.metadata.annotations)
 * // { ok: true, value: { name: 'a1b2c3_h', ifaceId: 'web-0.default', externalIds: { vendor: 'kube-ovn', ..., ip: '10.16.0.5' } } }
 */
export function podPortSpec(i: PodInterface, annotations: Readonly<Record<string, string>>): Decoded<PortSpec> {
  const provider = i.provider ?? OVN_PROVIDER;
  const d = decodePodNetwork(annotations, provider);
  if (!d.ok) return d;
  return {
    ok: true,
    value: {
      name: i.hostNic,
      ifaceId: podPortName(i.pod, i.namespace, provider),
      externalIds: {
        vendor: CNI_VENDOR,
        pod_name: i.pod,
        pod_namespace: i.namespace,
        ...(i.netns === undefined ? {} : { pod_netns: i.netns }),
        ip: d.value.ips.join(','),
      },
    },
  };
}
