/**
 * What the daemon and the in-namespace helper (ns-helper.cjs) say to each
 * other: one job as JSON on the helper's stdin, one reply as JSON on its
 * stdout. Everything textual (CIDRs, MACs) is turned into bytes on the
 * daemon's side before the job is sent, so the helper, plain JavaScript with
 * no types, only moves numbers into rtnetlink requests and back.
 */

/** An address as rtnetlink carries it: IFA_LOCAL/IFA_ADDRESS bytes and the prefix length. */
export interface WireAddress {
  readonly family: 4 | 6;
  readonly bytes: readonly number[];
  readonly prefixlen: number;
}

/** A route as rtnetlink carries it: RTA_DST (absent for default) and RTA_GATEWAY (absent on-link). */
export interface WireRoute {
  readonly family: 4 | 6;
  readonly dst?: readonly number[];
  readonly dstLen: number;
  readonly gw?: readonly number[];
  /** RTA_PREFSRC: the source address the kernel picks for traffic on this route. */
  readonly src?: readonly number[];
}

/**
 * Inside the namespace, in this order: lo up (`lo`), `ifName` renamed
 * (`rename`, down while renamed), MAC, MTU, up or down (`up`, default up),
 * tx checksum offload off (`txChecksumOff`), addresses, routes. A pod end is fresh: an address or route already there
 * is an error. A host link is configured again at every start: with
 * `replaceAddresses` its addresses of the listed families that are not
 * listed are removed and listed ones already there kept; with
 * `replaceRoutes` a route replaces one to the same destination.
 */
export interface ConfigureJob {
  readonly op: 'configure';
  readonly ifName: string;
  readonly rename?: string;
  readonly mac?: readonly number[];
  readonly mtu?: number;
  readonly up?: boolean;
  readonly lo?: boolean;
  readonly addresses: readonly Labelled<WireAddress>[];
  readonly replaceAddresses?: boolean;
  readonly routes: readonly Labelled<WireRoute>[];
  readonly replaceRoutes?: boolean;
  /** After up: the interface's tx checksum offload off (ethtool's `tx off`, through the ethtool netlink family). */
  readonly txChecksumOff?: boolean;
}

/**
 * Inside the namespace: `ifName` set down and moved to the namespace open
 * on the helper's fd 4 (the daemon's own) under `name`, in one request.
 */
export interface ReleaseJob {
  readonly op: 'release';
  readonly ifName: string;
  readonly name: string;
}

/** With the text the daemon was given (`10.16.0.5/16`, `default via 10.16.0.1`), for the helper's error messages. */
export type Labelled<T> = T & { readonly label: string };

/** Inside the namespace: read `ifName`, its global addresses and its main-table routes. */
export interface InspectJob {
  readonly op: 'inspect';
  readonly ifName: string;
}

export type HelperJob = ConfigureJob | InspectJob | ReleaseJob;

/** The interface as the helper found it. */
export interface WireLinkState {
  readonly ifName: string;
  /** Hardware address bytes. */
  readonly mac: readonly number[];
  readonly mtu: number;
  readonly up: boolean;
  readonly addresses: readonly WireAddress[];
  readonly routes: readonly WireRoute[];
}

export type HelperReply =
  | { readonly ok: true; readonly op: 'configure' }
  /** `state` is null when `ifName` does not exist in the namespace. */
  | { readonly ok: true; readonly op: 'inspect'; readonly state: WireLinkState | null }
  /** `found` false when `ifName` does not exist in the namespace (nothing moved). */
  | { readonly ok: true; readonly op: 'release'; readonly found: boolean }
  /** `errno` is the kernel's error name (e.g. EEXIST) when a request was refused; `step` says which. */
  | { readonly ok: false; readonly step: string; readonly errno?: string; readonly message: string };
