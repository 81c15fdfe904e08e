/**
 * Multus attachment networks as Kube-OVN reads them: the
 * NetworkAttachmentDefinition (k8s.cni.cncf.io/v1, its `spec.config` a CNI
 * configuration whose `type`, or a plugin's, is `kube-ovn`) and the pod
 * annotation `k8s.v1.cni.cncf.io/networks` (network-attachment-definition
 * utils' ParseNetworkAnnotation: `name`, `ns/name`, `name@if`, comma
 * separated, or a JSON list of {name, namespace, interface, ips, mac}).
 * A kube-ovn attachment's provider is `<nad>.<nad-namespace>.ovn` (Kube-OVN's
 * getPodAttachmentNet), the name its Subnet's `spec.provider` carries and the
 * prefix of the pod annotations written for it.
 */
import type { KubeObject } from '../cluster/types.ts';
import { type Plain, Reader } from './decode.ts';
import { type Decoded, type Meta, meta, objName } from './meta.ts';
import { NETWORK_ATTACHMENT_DEFINITION_SUPPORT } from './support/index.ts';

export const NETWORKS_ANNOTATION = 'k8s.v1.cni.cncf.io/networks';
/** Kube-OVN's CNI type name (pkg/util/const.go CniTypeName). */
export const KUBE_OVN_CNI = 'kube-ovn';

export interface NetworkAttachmentDefinitionView extends Meta {
  /** The CNI types named by the config (`type`, and each of `plugins[].type`). */
  readonly types: readonly string[];
  /** The config's `provider`, '' when absent. */
  readonly provider: string;
}

/**
 * @example decodeNetworkAttachmentDefinition(nad).value.types // ['kube-ovn']
 */
export function decodeNetworkAttachmentDefinition(o: KubeObject): Decoded<NetworkAttachmentDefinitionView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, NETWORK_ATTACHMENT_DEFINITION_SUPPORT);
  const text = r.str(spec, 'config', 'spec') ?? '';
  const types: string[] = [];
  let provider = '';
  if (text !== '') {
    let conf: unknown;
    try {
      conf = JSON.parse(text);
    } catch (e) {
      r.issue('invalid-value', 'spec.config', `spec.config is not JSON: ${(e as Error).message}`);
    }
    if (conf !== undefined && (typeof conf !== 'object' || conf === null || Array.isArray(conf)))
      r.issue('invalid-value', 'spec.config', 'spec.config must be a JSON object (a CNI configuration)');
    else if (conf !== undefined) {
      const c = conf as Plain;
      if (typeof c.type === 'string') types.push(c.type);
      if (Array.isArray(c.plugins))
        for (const p of c.plugins) if (typeof (p as Plain)?.type === 'string') types.push((p as Plain).type as string);
      if (typeof c.provider === 'string') provider = c.provider;
    }
  }
  return { value: { ...meta(o, r), types, provider }, issues: r.issues };
}

/** One element of the networks annotation. */
export interface NetworkSelection {
  readonly name: string;
  readonly namespace: string;
  readonly interface?: string;
  readonly ips?: readonly string[];
  readonly mac?: string;
}

export type NetworksParse =
  | { readonly ok: true; readonly value: readonly NetworkSelection[] }
  | { readonly ok: false; readonly error: { readonly code: 'invalid-networks'; readonly message: string } };

const bad = (message: string): NetworksParse => ({ ok: false, error: { code: 'invalid-networks', message } });

/**
 * @example parseNetworks('default/attachnet@net1, other', 'prod').value
 * // [{ name: 'attachnet', namespace: 'default', interface: 'net1' }, { name: 'other', namespace: 'prod' }]
 */
export function parseNetworks(text: string, podNamespace: string): NetworksParse {
  const t = text.trim();
  if (t === '') return { ok: true, value: [] };
  if (t.startsWith('[')) {
    let list: unknown;
    try {
      list = JSON.parse(t);
    } catch (e) {
      return bad(`not a JSON list: ${(e as Error).message}`);
    }
    if (!Array.isArray(list)) return bad('not a JSON list');
    const out: NetworkSelection[] = [];
    for (const [i, e] of list.entries()) {
      const x = (typeof e === 'object' && e !== null ? e : {}) as Plain;
      if (typeof x.name !== 'string' || x.name === '') return bad(`element ${i} has no name`);
      out.push({
        name: x.name,
        namespace: typeof x.namespace === 'string' && x.namespace !== '' ? x.namespace : podNamespace,
        ...(typeof x.interface === 'string' && x.interface !== '' ? { interface: x.interface } : {}),
        ...(Array.isArray(x.ips) ? { ips: x.ips.filter((a): a is string => typeof a === 'string') } : {}),
        ...(typeof x.mac === 'string' && x.mac !== '' ? { mac: x.mac } : {}),
      });
    }
    return { ok: true, value: out };
  }
  const out: NetworkSelection[] = [];
  for (const item of t.split(',')) {
    const s = item.trim();
    const m = /^(?:([^/@]+)\/)?([^/@]+)(?:@([^/@]+))?$/.exec(s);
    if (m === null) return bad(`${JSON.stringify(s)} is not [namespace/]name[@interface]`);
    out.push({ name: m[2]!, namespace: m[1] ?? podNamespace, ...(m[3] ? { interface: m[3] } : {}) });
  }
  return { ok: true, value: out };
}

/** The provider of a kube-ovn attachment: `<nad>.<nad-namespace>.ovn`. */
export const attachmentProvider = (n: { readonly name: string; readonly namespace: string }): string =>
  `${n.name}.${n.namespace}.ovn`;
