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
  /** Its Multus attachments' interfaces, each with its switch port (`<pod>.<ns>.<provider>`). */
  readonly attachments: readonly (PodInterface & { readonly port: string })[];
  /** The Pod object as the cluster has it. */
  readonly object: KubeObject;
}

/**
 * One interface of a pod: the default network's `eth0` (provider `ovn`), or a
 * Multus attachment's (`net1`, ...: its provider `<nad>.<nad-ns>.ovn`, as
 * Multus hands kube-ovn's plugin the NetworkAttachmentDefinition's config).
 */
export interface PodInterface {
  readonly provider: string;
  readonly ifName: string;
}

/** The default network's interface. */
export const PRIMARY: PodInterface = { provider: 'ovn', ifName: 'eth0' };

/**
 * How a pod gets an interface: given its (made) namespace, wire it (`eth0` first, then each
 * attachment's); `remove` undoes the OVS side.
 */
export interface PodWiring {
  add(pod: LabPodSpec, at: { readonly netns: string; readonly hostNic: string }, iface?: PodInterface): Promise<void>;
  remove(
    pod: LabPodSpec,
    at: { readonly netns: string; readonly hostNic: string },
    iface?: PodInterface,
  ): Promise<void>;
}
