/**
 * A scenario pod in the lab: a network namespace whose `eth0` is one end of
 * a veth pair, the other end a br-int port with `external_ids:iface-id`
 * `<pod>.<ns>`, wired as the node agent wires a pod from the controller's
 * annotations (MAC, addresses with the subnet's prefix, default route via
 * the subnet's gateway), then waited for until ovn-controller marks it
 * ovn-installed. `PodWiring` is the seam where the real CNI path (the plugin
 * executable and the daemon) plugs in.
 */
import { tryParseCIDR } from '../../model/addr/index.ts';
import type { PodNetworkRead } from '../../kube/annotations.ts';
import { addPort, deletePort, podPortSpec, type Vswitch, waitInstalled } from '../../node/ovs/index.ts';
import { LabError } from './errors.ts';
import { ipIn, txChecksumOff } from './host.ts';

export interface LabPodSpec {
  readonly namespace: string;
  readonly name: string;
  /** The scenario node it runs on. */
  readonly node: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly network: PodNetworkRead;
}

/** How a pod gets its interface: given its (empty, made) namespace, wire it; `remove` undoes the OVS side. */
export interface PodWiring {
  add(pod: LabPodSpec, at: { readonly netns: string; readonly hostNic: string }): Promise<void>;
  remove(pod: LabPodSpec, at: { readonly netns: string; readonly hostNic: string }): Promise<void>;
}

const isV6 = (a: string) => a.includes(':');

/** `10.16.0.5` with its subnet `10.16.0.0/16` → `10.16.0.5/16`. */
export function withPrefix(addr: string, cidrs: readonly string[]): string {
  const c = cidrs.find((x) => isV6(x) === isV6(addr));
  const p = c === undefined ? undefined : tryParseCIDR(c);
  return `${addr}/${p?.prefix ?? (isV6(addr) ? 128 : 32)}`;
}

const INSTALL_TIMEOUT_MS = 30_000;

/**
 * The steps the node agent takes, done here directly with `ip` and the
 * node agent's own OVS plumbing (node/ovs).
 *
 * @example await new DirectWiring(vswitch).add(pod, { netns: 'kl-Ab12Cd-p0', hostNic: 'klAb12Cdp0' });
 */
export class DirectWiring implements PodWiring {
  constructor(
    readonly vswitch: Vswitch,
    /** The lab's host namespace, where the veth's host end goes. */
    readonly host: string,
  ) {}

  async add(pod: LabPodSpec, at: { readonly netns: string; readonly hostNic: string }): Promise<void> {
    const { netns, hostNic } = at;
    const net = pod.network;
    await ipIn(this.host, 'link', 'add', hostNic, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns);
    if (net.mac !== undefined) await ipIn(netns, 'link', 'set', 'eth0', 'address', net.mac);
    for (const a of net.ips) await ipIn(netns, 'addr', 'add', withPrefix(a, net.cidrs), 'dev', 'eth0', 'nodad');
    await ipIn(netns, 'link', 'set', 'eth0', 'up');
    await txChecksumOff(netns, 'eth0');
    for (const gw of net.gateways)
      await ipIn(netns, ...(isV6(gw) ? ['-6'] : []), 'route', 'add', 'default', 'via', gw, 'dev', 'eth0');
    await ipIn(this.host, 'link', 'set', hostNic, 'up');
    const spec = podPortSpec({ pod: pod.name, namespace: pod.namespace, hostNic, netns }, pod.annotations);
    if (!spec.ok)
      throw new LabError(
        'wiring-failed',
        `pod ${pod.namespace}/${pod.name}: ${spec.issue.path}: ${spec.issue.message}`,
      );
    await addPort(this.vswitch, spec.value, { waitApplied: true });
    try {
      await waitInstalled(this.vswitch, [hostNic], { timeoutMs: INSTALL_TIMEOUT_MS });
    } catch (e) {
      throw new LabError('not-installed', `pod ${pod.namespace}/${pod.name}: ${String(e)}`, { cause: e });
    }
  }

  async remove(_pod: LabPodSpec, at: { readonly netns: string; readonly hostNic: string }): Promise<void> {
    await deletePort(this.vswitch, at.hostNic);
  }
}
