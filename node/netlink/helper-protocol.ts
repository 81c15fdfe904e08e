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
  /** RTA_PREFSRC (absent: the kernel picks). */
  readonly src?: readonly number[];
}

/** Inside the namespace: lo up, `ifName` up, its tx checksum offload off if asked, its addresses, then its routes (in order). */
export interface ConfigureJob {
  readonly op: 'configure';
  readonly ifName: string;
  readonly addresses: readonly Labelled<WireAddress>[];
  readonly routes: readonly Labelled<WireRoute>[];
  /** `ethtool -K <ifName> tx off` (PodLink.txChecksumOff). */
  readonly txChecksumOff?: boolean;
}

/** With the text the daemon was given (`10.16.0.5/16`, `default via 10.16.0.1`), for the helper's error messages. */
export type Labelled<T> = T & { readonly label: string };

/** Inside the namespace: read `ifName`, its global addresses and its main-table routes. */
export interface InspectJob {
  readonly op: 'inspect';
  readonly ifName: string;
}

export type HelperJob = ConfigureJob | InspectJob;

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
  /** `errno` is the kernel's error name (e.g. EEXIST) when a request was refused; `step` says which. */
  | { readonly ok: false; readonly step: string; readonly errno?: string; readonly message: string };
