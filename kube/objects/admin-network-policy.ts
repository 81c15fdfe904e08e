/**
 * AdminNetworkPolicy and BaselineAdminNetworkPolicy
 * (policy.networking.k8s.io/v1alpha1) as the controller reads them: a typed
 * view with the issues found (decode.ts, support/admin-network-policy.ts).
 * Both kinds share one view: a BANP is an ANP without a priority whose
 * rules have no Pass action.
 */
import { tryParseCIDR } from '../../model/addr/index.ts';
import type { KubeObject } from '../cluster/types.ts';
import { isBlocking, type Plain, Reader } from './decode.ts';
import { type Decoded, type L4Protocol, type LabelSelector, type Meta, meta, objName, selector } from './meta.ts';
import { ADMIN_NETWORK_POLICY_SUPPORT, BASELINE_ADMIN_NETWORK_POLICY_SUPPORT } from './support/index.ts';

export type AnpAction = 'Allow' | 'Deny' | 'Pass';

/** A subject or a peer: every pod of the selected namespaces, or the selected pods of them. */
export type AnpPods =
  | { readonly kind: 'namespaces'; readonly namespaces: LabelSelector }
  | { readonly kind: 'pods'; readonly namespaces: LabelSelector; readonly pods: LabelSelector };

export type AnpPeer =
  | AnpPods
  | { readonly kind: 'networks'; readonly cidrs: readonly string[] }
  | { readonly kind: 'nodes'; readonly nodes: LabelSelector };

export type AnpPort =
  | { readonly kind: 'number'; readonly protocol: L4Protocol; readonly port: number }
  | { readonly kind: 'range'; readonly protocol: L4Protocol; readonly start: number; readonly end: number }
  | { readonly kind: 'named'; readonly name: string };

export interface AnpRule {
  readonly name: string;
  readonly action: AnpAction;
  readonly peers: readonly AnpPeer[];
  /** Absent: every port and protocol. */
  readonly ports?: readonly AnpPort[];
}

export interface AdminNetworkPolicyView extends Meta {
  readonly baseline: boolean;
  /** 0..1000 (the API's range); a BANP has none (0). */
  readonly priority: number;
  /** Undefined when the object is not valid as written (see `invalid`). */
  readonly subject: AnpPods | undefined;
  readonly ingress: readonly AnpRule[];
  readonly egress: readonly AnpRule[];
  /** A blocking issue was found: the handler applies nothing of it (never half of it). */
  readonly invalid: boolean;
}

const ACTIONS: readonly string[] = ['Allow', 'Deny', 'Pass'];

/**
 * An ANP as the v1alpha1 CRD validates it: a subject with exactly one of
 * namespaces/pods, a priority 0..1000, rules with an action and 1..100
 * peers each with exactly one of its kinds, ports with exactly one of
 * portNumber/portRange/namedPort. Anything else is a blocking issue.
 *
 * @example decodeAdminNetworkPolicy(obj).value.priority // 7
 */
export function decodeAdminNetworkPolicy(o: KubeObject): Decoded<AdminNetworkPolicyView> {
  return decodeAnp(o, false);
}

/** @example decodeBaselineAdminNetworkPolicy(obj).value.baseline // true */
export function decodeBaselineAdminNetworkPolicy(o: KubeObject): Decoded<AdminNetworkPolicyView> {
  return decodeAnp(o, true);
}

function decodeAnp(o: KubeObject, baseline: boolean): Decoded<AdminNetworkPolicyView> {
  const r = new Reader(objName(o));
  r.support(o as unknown as Plain, baseline ? BASELINE_ADMIN_NETWORK_POLICY_SUPPORT : ADMIN_NETWORK_POLICY_SUPPORT);
  const spec = r.obj(o, 'spec', '');
  let priority = 0;
  if (!baseline) {
    const p = r.int(spec, 'priority', 'spec');
    if (p === undefined) r.issue('missing-field', 'spec.priority', 'spec.priority is required');
    else if (p < 0 || p > 1000) r.issue('invalid-value', 'spec.priority', `spec.priority ${p} is not in 0..1000`);
    else priority = p;
  }
  const subjectObj = r.obj(spec, 'subject', 'spec');
  if (subjectObj === undefined) r.issue('missing-field', 'spec.subject', 'spec.subject is required');
  const subject = subjectObj === undefined ? undefined : podsOf(r, subjectObj, 'spec.subject', ['namespaces', 'pods']);
  const rules = (k: 'ingress' | 'egress', peerKey: 'from' | 'to'): AnpRule[] =>
    r.objs(spec, k, 'spec').map((rule) => ruleOf(r, rule, peerKey, baseline, k === 'ingress'));
  const ingress = rules('ingress', 'from');
  const egress = rules('egress', 'to');
  const m = meta(o, r);
  const invalid = r.issues.some(isBlocking) || subject === undefined || subject.kind === undefined;
  const view: AdminNetworkPolicyView = {
    ...m,
    baseline,
    priority,
    subject: invalid ? undefined : (subject as AnpPods),
    ingress: invalid ? [] : ingress,
    egress: invalid ? [] : egress,
    invalid,
  };
  return { value: view, issues: r.issues };
}

type MaybePeer = AnpPeer | { readonly kind: undefined };

/** Exactly one of `allowed` set in `o`, decoded. */
function podsOf(r: Reader, o: Plain, at: string, allowed: readonly string[]): MaybePeer {
  const set = allowed.filter((k) => o[k] != null);
  if (set.length !== 1) {
    r.issue('invalid-value', at, `${at} must set exactly one of ${allowed.join(', ')}, got ${set.length}`);
    return { kind: undefined };
  }
  const k = set[0]!;
  if (k === 'namespaces' || k === 'nodes') {
    const sel = selector(r, o, k, at) ?? { matchLabels: {}, matchExpressions: [] };
    return k === 'namespaces' ? { kind: 'namespaces', namespaces: sel } : { kind: 'nodes', nodes: sel };
  }
  if (k === 'pods') {
    const p = r.obj(o, 'pods', at) ?? {};
    const ns = selector(r, p, 'namespaceSelector', `${at}.pods`);
    const pods = selector(r, p, 'podSelector', `${at}.pods`);
    if (ns === undefined || pods === undefined)
      r.issue('missing-field', `${at}.pods`, `${at}.pods needs namespaceSelector and podSelector`);
    const empty = { matchLabels: {}, matchExpressions: [] };
    return { kind: 'pods', namespaces: ns ?? empty, pods: pods ?? empty };
  }
  // networks
  const cidrs = r.strs(o, 'networks', at) ?? [];
  cidrs.forEach((c, i) => {
    if (tryParseCIDR(c) === undefined)
      r.issue('invalid-value', `${at}.networks[${i}]`, `${at}.networks[${i}] ${JSON.stringify(c)} is not a CIDR`);
  });
  if (cidrs.length === 0) r.issue('invalid-value', `${at}.networks`, `${at}.networks must not be empty`);
  return { kind: 'networks', cidrs };
}

function ruleOf(
  r: Reader,
  rule: { readonly at: string; readonly value: Plain },
  peerKey: 'from' | 'to',
  baseline: boolean,
  ingress: boolean,
): AnpRule {
  const at = rule.at;
  const name = r.str(rule.value, 'name', at) ?? '';
  const action = r.str(rule.value, 'action', at);
  const allowedActions = baseline ? ['Allow', 'Deny'] : ACTIONS;
  if (action === undefined) r.issue('missing-field', `${at}.action`, `${at}.action is required`);
  else if (!allowedActions.includes(action))
    r.issue('invalid-value', `${at}.action`, `${at}.action must be one of ${allowedActions.join(', ')}, got ${action}`);
  const list = r.objs(rule.value, peerKey, at);
  if (list.length === 0 || list.length > 100)
    r.issue('invalid-value', `${at}.${peerKey}`, `${at}.${peerKey} must hold 1..100 peers, got ${list.length}`);
  const kinds = ingress ? ['namespaces', 'pods'] : baseline ? ['namespaces', 'pods', 'nodes', 'networks'] : PEER_KINDS;
  const peers = list.flatMap((p) => {
    const v = podsOf(r, p.value, p.at, kinds);
    return v.kind === undefined ? [] : [v];
  });
  const portList = r.arr(rule.value, 'ports', at);
  const ports = portList === undefined ? undefined : r.objs(rule.value, 'ports', at).flatMap((p) => portOf(r, p));
  return { name, action: (action ?? 'Deny') as AnpAction, peers, ...(ports ? { ports } : {}) };
}

const PEER_KINDS = ['namespaces', 'pods', 'nodes', 'networks'];

function portOf(r: Reader, p: { readonly at: string; readonly value: Plain }): AnpPort[] {
  const set = ['portNumber', 'portRange', 'namedPort'].filter((k) => p.value[k] != null);
  if (set.length !== 1) {
    r.issue('invalid-value', p.at, `${p.at} must set exactly one of portNumber, portRange, namedPort`);
    return [];
  }
  if (set[0] === 'namedPort') {
    const name = r.str(p.value, 'namedPort', p.at);
    return name === undefined ? [] : [{ kind: 'named', name }];
  }
  const at = `${p.at}.${set[0]}`;
  const v = r.obj(p.value, set[0]!, p.at) ?? {};
  const protocol = l4(r, v, at);
  if (set[0] === 'portNumber') {
    const port = r.port(v, 'port', at);
    if (port === undefined) r.issue('missing-field', `${at}.port`, `${at}.port is required`);
    return port === undefined ? [] : [{ kind: 'number', protocol, port }];
  }
  const start = r.port(v, 'start', at);
  const end = r.port(v, 'end', at);
  if (start === undefined || end === undefined) {
    r.issue('missing-field', at, `${at} needs start and end`);
    return [];
  }
  if (end < start) r.issue('invalid-value', `${at}.end`, `${at}.end ${end} is below ${at}.start ${start}`);
  return [{ kind: 'range', protocol, start, end }];
}

/** The CRD's protocol: TCP, UDP or SCTP, defaulting to TCP. */
function l4(r: Reader, o: Plain, at: string): L4Protocol {
  const p = r.str(o, 'protocol', at) ?? 'TCP';
  if (p === 'TCP' || p === 'UDP' || p === 'SCTP') return p;
  r.issue('invalid-value', `${at}.protocol`, `${at}.protocol must be TCP, UDP or SCTP, got ${JSON.stringify(p)}`);
  return 'TCP';
}
