/**
 * Which (apiVersion, kind) pairs kovn handles, and what it says about the
 * rest. `apiVersion` is checked together with `kind`: a
 * `crd.projectcalico.org/v1` NetworkPolicy or a `kubeovn.io/v2` Subnet is
 * not the kind kovn reads, whatever its name.
 *
 * Kinds Kube-OVN acts on and kovn does not yet (a Vip, an EIP, an
 * AdminNetworkPolicy) may change what reaches what: each says which probes
 * (`scope`) may depend on it. Kinds no Kube-OVN cluster acts on (a
 * ConfigMap, another CNI's policy) change no verdict of Kube-OVN's: reported,
 * with no scope.
 */
import { isPlainObject } from '../cluster/json.ts';
import { API_VERSION, REGISTRY } from '../registry.ts';
import type { VerdictScope } from './warnings.ts';

/**
 * The kinds kovn acts on, with their one apiVersion: the registry's kinds
 * but those only the controller writes (Events, Leases) and those only the
 * API front stores (RBAC, ConfigMaps, CRDs).
 */
const HANDLED_KINDS: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(
    Object.entries(REGISTRY).flatMap(([k, d]) =>
      d.role === 'written' || d.role === 'served' ? [] : [[k, API_VERSION[k]!]],
    ),
  ),
);

type Obj = Readonly<Record<string, unknown>>;

const rec = (v: unknown): Obj => (isPlainObject(v) ? v : {});
const strs = (...vs: unknown[]) => vs.flatMap((v) => (typeof v === 'string' && v !== '' ? v.split(',') : []));
const vpcOf = (...vs: unknown[]): VerdictScope[] => strs(...vs).map((name) => ({ kind: 'vpc', name }));

interface Unhandled {
  readonly why: string;
  /** What a probe's verdict may depend on, from the object; absent: nothing. */
  readonly scope?: (o: Obj) => VerdictScope[];
}

/** Kube-OVN's kinds (kubeovn.io/v1) kovn does not act on yet, and what each may change. */
const KUBE_OVN_UNHANDLED: Readonly<Record<string, Unhandled>> = {
  RouterLBRule: { why: 'router load-balancer rules are not programmed yet', scope: (o) => vpcOf(rec(o.spec).vpc) },
  VpcEgressGateway: { why: 'VPC egress gateways are not modelled yet', scope: (o) => vpcOf(rec(o.spec).vpc) },
  VpcDns: { why: "a VPC's DNS deployment changes no probe verdict" },
  BgpConf: { why: 'BGP announcement is outside the cluster network' },
  EvpnConf: { why: 'EVPN is outside the cluster network' },
  DNSNameResolver: { why: 'DNS-name ACLs are not modelled yet', scope: () => [{ kind: 'cluster' }] },
};

/** Other kinds a Kube-OVN cluster acts on, by apiVersion group. */
const OTHER_NETWORK_KINDS: Readonly<Record<string, Readonly<Record<string, Unhandled>>>> = {};

export interface KindVerdict {
  readonly handled: boolean;
  /** Why not, for a warning (`UnsupportedKind`). */
  readonly message?: string;
  /** What a probe's verdict may depend on (absent: nothing). */
  readonly scope?: readonly VerdictScope[];
}

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');

/**
 * @example classifyKind({ apiVersion: 'crd.projectcalico.org/v1', kind: 'NetworkPolicy' })
 *   // { handled: false, message: 'crd.projectcalico.org/v1 NetworkPolicy is not networking.k8s.io/v1 NetworkPolicy: ...' }
 */
export function classifyKind(o: Obj): KindVerdict {
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const kind = typeof o.kind === 'string' ? o.kind : '';
  const want = HANDLED_KINDS[kind];
  if (want !== undefined && want === apiVersion) return { handled: true };
  const group = groupOf(apiVersion);
  const known = group === 'kubeovn.io' ? KUBE_OVN_UNHANDLED[kind] : OTHER_NETWORK_KINDS[group]?.[kind];
  if (known !== undefined && (group !== 'kubeovn.io' || apiVersion === 'kubeovn.io/v1')) {
    const scope = known.scope?.(o) ?? [];
    return {
      handled: false,
      message: `${apiVersion} ${kind} is not acted on: ${known.why}`,
      ...(scope.length > 0 ? { scope } : {}),
    };
  }
  if (want !== undefined)
    return {
      handled: false,
      message: `${apiVersion || '(no apiVersion)'} ${kind} is not ${want} ${kind}: not read (kovn reads ${want})`,
    };
  return { handled: false, message: `kind ${kind} (${apiVersion}) is not one kovn reads: not acted on` };
}
