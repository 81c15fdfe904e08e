/**
 * NetworkPolicy (networking.k8s.io/v1) as the controller reads it: a typed
 * view with the issues found (decode.ts, support/network-policy.ts).
 */
import { containsCIDR, tryParseCIDR } from '../../model/addr/index.ts';
import type { KubeObject } from '../cluster/types.ts';
import { isBlocking, type Plain, Reader } from './decode.ts';
import {
  type Decoded,
  type L4Protocol,
  type LabelSelector,
  type Meta,
  meta,
  objName,
  protocol,
  selector,
} from './meta.ts';
import { NETWORK_POLICY_SUPPORT } from './support/index.ts';

export interface PolicyPeer {
  readonly podSelector?: LabelSelector;
  readonly namespaceSelector?: LabelSelector;
  readonly ipBlock?: { readonly cidr: string; readonly except: readonly string[] };
}

export interface PolicyRule {
  /** Absent: every peer. */
  readonly peers?: readonly PolicyPeer[];
  readonly ports: readonly {
    readonly protocol: L4Protocol;
    readonly port?: number | string;
    readonly endPort?: number;
  }[];
}

export interface NetworkPolicyView extends Meta {
  /**
   * The policy is not valid as written (a blocking issue): the view is its
   * fail-closed form, no rules in the directions it covers, so the pods it
   * selects are isolated there, as Kubernetes requires of a policy that
   * selects them. Never dropped, which would open them.
   */
  readonly failClosed: boolean;
  readonly podSelector: LabelSelector;
  readonly policyTypes: readonly ('Ingress' | 'Egress')[];
  readonly ingress: readonly PolicyRule[];
  readonly egress: readonly PolicyRule[];
}

/**
 * A policy as Kubernetes validates it: port numbers 1..65535 or port names,
 * `endPort` only with a numeric `port` and not below it, CIDRs that parse
 * with `except` inside them, a peer that is an ipBlock or selectors (not
 * both), known selector operators. Any of these wrong is a blocking issue:
 * the handler then isolates the selected pods in every direction the policy
 * covers (fail closed), never drops the policy.
 */
export function decodeNetworkPolicy(o: KubeObject): Decoded<NetworkPolicyView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, NETWORK_POLICY_SUPPORT);
  const peerOf = (p: { at: string; value: Plain }): PolicyPeer => {
    const block = r.obj(p.value, 'ipBlock', p.at);
    if (block) {
      const at = `${p.at}.ipBlock`;
      if (p.value.podSelector != null || p.value.namespaceSelector != null)
        r.issue('invalid-value', at, `${p.at} may not have both an ipBlock and selectors`);
      const cidr = r.str(block, 'cidr', at) ?? '';
      const except = r.strs(block, 'except', at) ?? [];
      checkBlock(r, at, cidr, except);
      return { ipBlock: { cidr, except } };
    }
    const ps = selector(r, p.value, 'podSelector', p.at);
    const ns = selector(r, p.value, 'namespaceSelector', p.at);
    return { ...(ps ? { podSelector: ps } : {}), ...(ns ? { namespaceSelector: ns } : {}) };
  };
  const portOf = (p: { at: string; value: Plain }) => {
    const port = r.portOrName(p.value, 'port', p.at);
    const endPort = r.port(p.value, 'endPort', p.at);
    if (endPort !== undefined) {
      if (typeof port !== 'number')
        r.issue('invalid-value', `${p.at}.endPort`, `${p.at}.endPort needs a numeric ${p.at}.port`);
      else if (endPort < port)
        r.issue('invalid-value', `${p.at}.endPort`, `${p.at}.endPort ${endPort} is below ${p.at}.port ${port}`);
    }
    return {
      protocol: protocol(r, p.value, p.at),
      ...(port !== undefined ? { port } : {}),
      ...(endPort !== undefined ? { endPort } : {}),
    };
  };
  const rules = (k: 'ingress' | 'egress', peerKey: 'from' | 'to'): PolicyRule[] =>
    r.objs(spec, k, 'spec').map((rule) => {
      const list = r.arr(rule.value, peerKey, rule.at);
      const peers =
        list === undefined || list.length === 0 ? undefined : r.objs(rule.value, peerKey, rule.at).map(peerOf);
      const ports = r.objs(rule.value, 'ports', rule.at).map(portOf);
      return { ...(peers ? { peers } : {}), ports };
    });
  const ingress = rules('ingress', 'from');
  const egress = rules('egress', 'to');
  const given = r.strs(spec, 'policyTypes', 'spec');
  let typesInvalid = given === undefined && spec?.policyTypes != null;
  const policyTypes = (given ?? ['Ingress', ...(spec?.egress !== undefined ? ['Egress'] : [])]).filter(
    (t): t is 'Ingress' | 'Egress' => {
      if (t === 'Ingress' || t === 'Egress') return true;
      r.issue('invalid-value', 'spec.policyTypes', `spec.policyTypes: ${JSON.stringify(t)} is not Ingress or Egress`);
      typesInvalid = true;
      return false;
    },
  );
  // A selector expression with an unknown operator is left out, which widens the policy's own selector:
  // more pods isolated, never fewer (its peers' selectors do not matter once it fails closed).
  const podSelector = selector(r, spec, 'podSelector', 'spec') ?? { matchLabels: {}, matchExpressions: [] };
  const m = meta(o, r);
  if (r.issues.some(isBlocking))
    return {
      value: {
        ...m,
        failClosed: true,
        podSelector,
        // Directions it may have meant to cover: all of them when its policyTypes cannot be read.
        policyTypes: typesInvalid ? ['Ingress', 'Egress'] : policyTypes,
        ingress: [],
        egress: [],
      },
      issues: r.issues,
    };
  return { value: { ...m, failClosed: false, podSelector, policyTypes, ingress, egress }, issues: r.issues };
}

/** An ipBlock as Kubernetes validates it: a CIDR, and each `except` a CIDR inside it. */
function checkBlock(r: Reader, at: string, cidr: string, except: readonly string[]): void {
  const block = tryParseCIDR(cidr);
  if (block === undefined) {
    r.issue('invalid-value', `${at}.cidr`, `${at}.cidr ${JSON.stringify(cidr)} is not a CIDR`);
    return;
  }
  except.forEach((e, i) => {
    const x = tryParseCIDR(e);
    if (x === undefined)
      r.issue('invalid-value', `${at}.except[${i}]`, `${at}.except[${i}] ${JSON.stringify(e)} is not a CIDR`);
    else if (x.family !== block.family || !containsCIDR(block, x))
      r.issue('invalid-value', `${at}.except[${i}]`, `${at}.except[${i}] ${e} is not inside ${at}.cidr ${cidr}`);
  });
}
