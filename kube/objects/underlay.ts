/**
 * kubeovn.io/v1 ProviderNetwork and Vlan as typed views (pkg/apis/kubeovn/v1/
 * provider-network.go, vlan.go): what the underlay translation reads. What
 * kovn does with each field is in support/underlay.ts.
 */
import type { KubeObject } from '../cluster/types.ts';
import { type Plain, Reader } from './decode.ts';
import { type Decoded, type Meta, meta, objName } from './meta.ts';
import { PROVIDER_NETWORK_SUPPORT, VLAN_SUPPORT } from './support/underlay.ts';

/** Kube-OVN's `--default-provider-name`: the provider of a Vlan that names none (handleAddVlan). */
export const DEFAULT_PROVIDER_NAME = 'provider';

export interface ProviderNetworkView extends Meta {
  readonly defaultInterface: string;
}

/**
 * @example decodeProviderNetwork({ apiVersion: 'kubeovn.io/v1', kind: 'ProviderNetwork', metadata: { name: 'net1' }, spec: { defaultInterface: 'eth1' } }).value.defaultInterface // 'eth1'
 */
export function decodeProviderNetwork(o: KubeObject): Decoded<ProviderNetworkView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, PROVIDER_NETWORK_SUPPORT);
  const defaultInterface = r.str(spec, 'defaultInterface', 'spec') ?? '';
  if (defaultInterface === '') r.issue('missing-field', 'spec.defaultInterface', 'spec.defaultInterface is required');
  return { value: { ...meta(o, r), defaultInterface }, issues: r.issues };
}

export interface VlanView extends Meta {
  /** 0..4095; 0 is untagged (no localnet tag). */
  readonly id: number;
  /** The ProviderNetwork's name. */
  readonly provider: string;
}

/**
 * @example decodeVlan({ apiVersion: 'kubeovn.io/v1', kind: 'Vlan', metadata: { name: 'vlan100' }, spec: { id: 100, provider: 'net1' } }).value
 *   // { ..., id: 100, provider: 'net1' }
 */
export function decodeVlan(o: KubeObject): Decoded<VlanView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, VLAN_SUPPORT);
  let id = r.int(spec, 'id', 'spec') ?? 0;
  if (id < 0 || id > 4095) {
    r.issue('invalid-value', 'spec.id', `spec.id must be 0..4095, got ${id}`);
    id = 0;
  }
  const provider = r.str(spec, 'provider', 'spec') || DEFAULT_PROVIDER_NAME;
  return { value: { ...meta(o, r), id, provider }, issues: r.issues };
}
