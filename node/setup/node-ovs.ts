/**
 * The node's own Open_vSwitch settings, written through kovn's OVSDB client
 * in one transaction: the root row's `external_ids` that ovn-controller reads
 * (`system-id`, `hostname`, `ovn-remote`, `ovn-encap-type`, `ovn-encap-ip`,
 * `ovn-bridge-datapath-type`; ovn-controller(8) "Configuration"), the
 * profile's `other_config` (`dpdk-init`, `hw-offload`), and br-int in
 * fail-mode secure with the profile's `datapath_type` (Kube-OVN's
 * start-ovs.sh and start-ovs-dpdk-v2.sh set the same keys with ovs-vsctl).
 */
import type { Operation } from '../../backends/ovn/ovsdb/index.ts';
import { type CommitOptions, INTEGRATION_BRIDGE, type Vswitch } from '../ovs/index.ts';
import { type DatapathProfile, profileSettings } from './profile.ts';

export interface NodeOvsConfig {
  /** `external_ids:system-id`: the chassis name (Kube-OVN: a random UUID kept in system-id.conf). */
  readonly systemId: string;
  /** `external_ids:hostname`; default the system-id. Kube-OVN sets the Node's name. */
  readonly hostname?: string;
  /** `external_ids:ovn-remote`: the SB, e.g. `tcp:10.0.0.1:6642` or `unix:/run/ovn/ovnsb_db.sock`. */
  readonly ovnRemote: string;
  /** `external_ids:ovn-encap-type`; default `geneve` (Kube-OVN's TUNNEL_TYPE default). */
  readonly encapType?: 'geneve' | 'vxlan' | 'stt' | (string & {});
  /** `external_ids:ovn-encap-ip`: the address other chassis tunnel to. */
  readonly encapIp: string;
  readonly profile: DatapathProfile;
  /** Default br-int. */
  readonly bridge?: string;
  /** Further root `external_ids` (ovn-bridge-mappings, ovn-remote-probe-interval, ...). */
  readonly externalIds?: Readonly<Record<string, string>>;
  /** Further root `other_config` (dpdk-socket-mem, dpdk-hugepage-dir, ...). */
  readonly otherConfig?: Readonly<Record<string, string>>;
}

/**
 * The root `external_ids` a node writes for its config.
 *
 * @example
 * nodeExternalIds({ systemId: 'n1', ovnRemote: 'tcp:10.0.0.1:6642', encapIp: '10.0.0.11', profile: 'netdev' })
 * // { 'system-id': 'n1', hostname: 'n1', 'ovn-remote': ..., 'ovn-encap-type': 'geneve', 'ovn-encap-ip': ..., 'ovn-bridge-datapath-type': 'netdev' }
 */
export function nodeExternalIds(cfg: NodeOvsConfig): Record<string, string> {
  return {
    ...cfg.externalIds,
    'system-id': cfg.systemId,
    hostname: cfg.hostname ?? cfg.systemId,
    'ovn-remote': cfg.ovnRemote,
    'ovn-encap-type': cfg.encapType ?? 'geneve',
    'ovn-encap-ip': cfg.encapIp,
    // Without it ovn-controller leaves br-int's datapath_type alone; with it, it keeps it at the profile's.
    'ovn-bridge-datapath-type': profileSettings(cfg.profile).datapathType,
    ...(cfg.bridge === undefined || cfg.bridge === INTEGRATION_BRIDGE ? {} : { 'ovn-bridge': cfg.bridge }),
  };
}

/**
 * Operations that bring the node's settings to `cfg` (other keys of the
 * root row and of br-int are kept): one transaction, so that ovn-controller
 * never sees an ovn-remote without the encap settings.
 *
 * @example
 * await vs.commit(nodeOvsOps(vs, { systemId: 'node1', ovnRemote: 'tcp:10.0.0.1:6642', encapIp: '10.0.0.11', profile: 'netdev' }));
 */
export function nodeOvsOps(vs: Vswitch, cfg: NodeOvsConfig): Operation[] {
  const b = vs.ops;
  const settings = profileSettings(cfg.profile);
  const bridge = cfg.bridge ?? INTEGRATION_BRIDGE;
  const where = [b.whereUuid(vs.root()._uuid)];
  const otherConfig = { ...cfg.otherConfig, ...settings.otherConfig };
  return [
    ...vs.setRootExternalIdsOps(nodeExternalIds(cfg)),
    // A map insert keeps an existing key's value: the keys are deleted first.
    b.mutate('Open_vSwitch', where, [['other_config', 'delete', Object.keys(otherConfig)]]),
    b.mutate('Open_vSwitch', where, [['other_config', 'insert', otherConfig]]),
    ...vs.ensureBridgeOps({ name: bridge, failMode: 'secure', otherConfig: { 'disable-in-band': 'true' } }),
    // After the insert of a new bridge in the same transaction: the update sees it.
    b.update('Bridge', [['name', '==', bridge]], { datapath_type: settings.datapathType }),
  ];
}

/**
 * Writes the node's settings; with `waitApplied`, resolves once vswitchd
 * has reconfigured (br-int exists in the datapath).
 *
 * @example await configureNodeOvs(vs, { systemId: 'n1', ovnRemote, encapIp, profile: 'netdev' }, { waitApplied: true });
 */
export async function configureNodeOvs(vs: Vswitch, cfg: NodeOvsConfig, opts: CommitOptions = {}): Promise<void> {
  await vs.commit(nodeOvsOps(vs, cfg), opts);
}

/**
 * The profile a node's database says it runs: br-int's `datapath_type` and
 * the root row's `dpdk-init` / `hw-offload` (what nodeOvsOps wrote, or an
 * operator's ovs-vsctl). For a daemon that was not told its profile: the
 * node's own state is the answer. Undefined when br-int does not exist yet.
 *
 * @example readProfile(vs) // 'netdev'
 */
export function readProfile(vs: Vswitch, bridge: string = INTEGRATION_BRIDGE): DatapathProfile | undefined {
  const br = vs.bridge(bridge);
  if (br === undefined) return undefined;
  const other = vs.root().other_config;
  if (br.datapath_type === 'netdev') return other['dpdk-init'] === 'true' ? 'dpdk' : 'netdev';
  return other['hw-offload'] === 'true' ? 'hw-offload' : 'system';
}
