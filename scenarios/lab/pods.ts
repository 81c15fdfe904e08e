/**
 * A scenario pod in the lab: a network namespace whose `eth0` is one end of
 * a veth pair, the other end a br-int port with `external_ids:iface-id`
 * `<pod>.<ns>`, wired from the controller's annotations. `PodWiring` says
 * how (cni.ts: kovn's CNI plugin and node daemon, as a runtime calls them).
 */
import type { PodNetworkRead } from '../../kube/annotations.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';

export interface LabPodSpec {
  readonly namespace: string;
  readonly name: string;
  /** The scenario node it runs on. */
  readonly node: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly network: PodNetworkRead;
  /** The Pod object as the cluster has it. */
  readonly object: KubeObject;
}

/** How a pod gets its interface: given its (empty, made) namespace, wire it; `remove` undoes the OVS side. */
export interface PodWiring {
  add(pod: LabPodSpec, at: { readonly netns: string; readonly hostNic: string }): Promise<void>;
  remove(pod: LabPodSpec, at: { readonly netns: string; readonly hostNic: string }): Promise<void>;
}
