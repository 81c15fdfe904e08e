/**
 * The wire contract between the CNI plugin (`kovn cni`, the thin executable a
 * runtime calls) and the node daemon (`kovn daemon --node NAME`): one
 * connection per request on a unix socket, the request as one JSON line, the
 * response as one JSON line, then the daemon closes. Kube-OVN's plugin talks
 * HTTP to kube-ovn-cniserver on /run/openvswitch/kube-ovn-daemon.sock; ours is
 * a single line each way, because the plugin is started for every pod and
 * must stay small (no HTTP stack loaded at each call).
 *
 * The CNI types here are the spec's (CNI 1.0.0 / 1.1.0, SPEC.md): the result
 * and error shapes pass through the daemon unchanged to the runtime.
 */

/** Where the daemon listens unless the network config's `server_socket` says otherwise (Kube-OVN's key). */
export const DEFAULT_DAEMON_SOCKET = '/run/kovn/daemon.sock';

/** The CNI versions the plugin answers VERSION with. */
export const SUPPORTED_CNI_VERSIONS = ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] as const;

/** The spec's well-known error codes (SPEC.md "Error"); 100 and up are ours. */
export const CNI_ERROR = {
  incompatibleVersion: 1,
  unsupportedField: 2,
  unknownContainer: 3,
  invalidEnvironment: 4,
  ioFailure: 5,
  decodeFailure: 6,
  invalidConfig: 7,
  tryAgainLater: 11,
  /** STATUS (1.1): the plugin cannot serve ADD now. */
  notAvailable: 50,
  /** STATUS (1.1): not available, and existing containers may have limited connectivity. */
  notAvailableLimited: 51,
  /** Ours: the pod's annotations did not come in time. */
  annotationTimeout: 100,
  /** Ours: the pod is not known to the daemon's cluster source. */
  podNotFound: 101,
  /** Ours: OVS refused or did not install the port in time. */
  ovsFailure: 102,
  /** Ours: a netlink request failed. */
  netlinkFailure: 103,
  /** Ours: ADD for a container interface that is attached already (DEL it first). */
  attachmentExists: 104,
  /** Ours: a pod annotation the daemon applies does not parse (e.g. `ingress_rate`). */
  invalidAnnotation: 105,
} as const;

/** The spec's error body, printed on stdout by the plugin with a non-zero exit. */
export interface CniErrorBody {
  readonly cniVersion?: string;
  readonly code: number;
  readonly msg: string;
  readonly details?: string;
}

export interface CniInterface {
  readonly name: string;
  readonly mac?: string;
  readonly mtu?: number;
  /** The namespace path for a container-side interface; absent for a host-side one. */
  readonly sandbox?: string;
  readonly socketPath?: string;
  readonly pciID?: string;
}

export interface CniIpConfig {
  /** CIDR notation: the address and its prefix, e.g. `10.16.0.5/16`. */
  readonly address: string;
  readonly gateway?: string;
  /** Index into `interfaces`. */
  readonly interface?: number;
}

export interface CniRoute {
  readonly dst: string;
  readonly gw?: string;
  /** This and the fields below are CNI 1.1's; a result in an older version goes without them. */
  readonly mtu?: number;
  readonly advmss?: number;
  /** Lower is preferred. */
  readonly priority?: number;
  readonly table?: number;
  /** global (0), link (253), host (254). */
  readonly scope?: number;
}

export interface CniDns {
  readonly nameservers?: readonly string[];
  readonly domain?: string;
  readonly search?: readonly string[];
  readonly options?: readonly string[];
}

/** The ADD result (SPEC.md "Success"). */
export interface CniResult {
  readonly cniVersion: string;
  readonly interfaces?: readonly CniInterface[];
  readonly ips?: readonly CniIpConfig[];
  readonly routes?: readonly CniRoute[];
  readonly dns?: CniDns;
}

export type DaemonCommand = 'ADD' | 'DEL' | 'CHECK' | 'STATUS' | 'GC';

/** One attachment GC must keep (CNI 1.1 `cni.dev/valid-attachments`). */
export interface CniAttachment {
  readonly containerId: string;
  readonly ifName: string;
}

/** What the plugin sends: the CNI_* environment and the network config, already parsed and checked. */
export interface DaemonRequest {
  readonly command: DaemonCommand;
  readonly cniVersion: string;
  /** The network's name (config `name`). */
  readonly network: string;
  /** CNI_CONTAINERID; '' for STATUS and GC. */
  readonly containerId: string;
  /** CNI_NETNS (a path); may be '' on DEL (the namespace may already be gone). */
  readonly netns: string;
  /** CNI_IFNAME. */
  readonly ifName: string;
  /** From CNI_ARGS `K8S_POD_NAME` / `K8S_POD_NAMESPACE`; '' when the runtime gave none. */
  readonly podName: string;
  readonly podNamespace: string;
  /** The network config's `provider` (Kube-OVN's key), default `ovn`: the default network. */
  readonly provider: string;
  /**
   * CHECK, and ADD when chained after another plugin, in the 1.1 shape whatever the config's version
   * (the plugin converts). On ADD the daemon answers its own attachment only: the plugin chains it
   * after prevResult and converts it to the config's cniVersion.
   */
  readonly prevResult?: CniResult;
  /** GC: the attachments to keep. */
  readonly validAttachments?: readonly CniAttachment[];
  /** The config's `runtimeConfig` (capabilities), passed through. */
  readonly runtimeConfig?: Readonly<Record<string, unknown>>;
  /**
   * An offloaded pod's VF: its PCI address (Kube-OVN's config key `deviceID`, set by the SR-IOV
   * device plugin); the daemon plugs the VF's representor (hw-offload profile).
   */
  readonly deviceId?: string;
  /**
   * A DPDK pod's vhost-user socket (Kube-OVN's config keys `vhost_user_socket_volume_name` and
   * `vhost_user_socket_name`): the daemon's port serves
   * `<vhost socket dir>/<pod uid>/<volume name>/<socket name>` (dpdk profile).
   */
  readonly vhostUserSocketVolumeName?: string;
  readonly vhostUserSocketName?: string;
}

export type DaemonResponse =
  | { readonly ok: true; readonly result?: CniResult }
  | { readonly ok: false; readonly error: CniErrorBody };
