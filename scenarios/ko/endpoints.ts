/**
 * Where `kovn ko` finds the cluster's OVN databases: each from the command
 * line first, then the ConfigMap `kube-system/kovn-ovn` of the cluster
 * (`kovn sim serve --backend ovn` writes it; data `nb`, `sb`: remotes as
 * ovn-nbctl takes them; `nbCtl`, `sbCtl`: the members' unixctl sockets,
 * comma-separated), then the environment (`OVN_NB_DB`, `OVN_SB_DB`, what
 * ovn-nbctl itself reads). Each value says where it came from.
 */
import type { ClusterSource } from '../../kube/cluster/types.ts';

export const OVN_CONFIGMAP = { kind: 'ConfigMap', namespace: 'kube-system', name: 'kovn-ovn' } as const;

export type Origin = 'flag' | 'configmap' | 'env';

/** A value and where it was found. */
export interface Found<T> {
  readonly value: T;
  readonly from: Origin;
}

export interface OvnEndpoints {
  readonly nb?: Found<string>;
  readonly sb?: Found<string>;
  readonly nbCtl?: Found<readonly string[]>;
  readonly sbCtl?: Found<readonly string[]>;
}

export interface EndpointFlags {
  readonly nb?: string;
  readonly sb?: string;
  readonly nbCtl?: string;
  readonly sbCtl?: string;
}

export type KoErrorCode = 'no-endpoint' | 'no-cluster' | 'bad-probe';

/**
 * @example
 * throw new KoError('no-endpoint', 'no NB database: give --nb ...');
 */
export class KoError extends Error {
  override readonly name = 'KoError';
  constructor(
    readonly code: KoErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const list = (v: string): string[] =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

function pick<T>(flag: T | undefined, cm: T | undefined, env: T | undefined): Found<T> | undefined {
  if (flag !== undefined) return { value: flag, from: 'flag' };
  if (cm !== undefined) return { value: cm, from: 'configmap' };
  if (env !== undefined) return { value: env, from: 'env' };
  return undefined;
}

/**
 * @example
 * const e = await resolveEndpoints({ flags: { nb: 'unix:/run/ovn/ovnnb_db.sock' }, env: process.env, cluster });
 * e.nb; // { value: 'unix:/run/ovn/ovnnb_db.sock', from: 'flag' }
 */
export async function resolveEndpoints(opts: {
  readonly flags: EndpointFlags;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cluster?: ClusterSource;
}): Promise<OvnEndpoints> {
  const cm = opts.cluster ? await opts.cluster.get(OVN_CONFIGMAP) : undefined;
  const data = ((cm as { data?: Record<string, unknown> } | undefined)?.data ?? {}) as Record<string, unknown>;
  const str = (k: string) => (typeof data[k] === 'string' && data[k] !== '' ? (data[k] as string) : undefined);
  const ctl = (v: string | undefined) => (v === undefined ? undefined : list(v));
  const f = opts.flags;
  const nb = pick(f.nb, str('nb'), opts.env.OVN_NB_DB || undefined);
  const sb = pick(f.sb, str('sb'), opts.env.OVN_SB_DB || undefined);
  const nbCtl = pick(ctl(f.nbCtl), ctl(str('nbCtl')), undefined);
  const sbCtl = pick(ctl(f.sbCtl), ctl(str('sbCtl')), undefined);
  return { ...(nb ? { nb } : {}), ...(sb ? { sb } : {}), ...(nbCtl ? { nbCtl } : {}), ...(sbCtl ? { sbCtl } : {}) };
}

const HOW: Readonly<Record<keyof OvnEndpoints, string>> = {
  nb: 'give --nb, or --kubeconfig of a cluster whose ConfigMap kube-system/kovn-ovn has data.nb, or set OVN_NB_DB',
  sb: 'give --sb, or --kubeconfig of a cluster whose ConfigMap kube-system/kovn-ovn has data.sb, or set OVN_SB_DB',
  nbCtl:
    "give --nb-ctl (the members' unixctl sockets), or --kubeconfig of a cluster whose ConfigMap kube-system/kovn-ovn has data.nbCtl",
  sbCtl:
    "give --sb-ctl (the members' unixctl sockets), or --kubeconfig of a cluster whose ConfigMap kube-system/kovn-ovn has data.sbCtl",
};

/**
 * The endpoint or a KoError saying how to give it.
 *
 * @example const nb = need(endpoints, 'nb'); // 'unix:/run/ovn/ovnnb_db.sock'
 */
export function need<K extends keyof OvnEndpoints>(e: OvnEndpoints, k: K): NonNullable<OvnEndpoints[K]>['value'] {
  const v = e[k];
  if (v === undefined) throw new KoError('no-endpoint', `no ${k}: ${HOW[k]}`);
  return v.value as NonNullable<OvnEndpoints[K]>['value'];
}
