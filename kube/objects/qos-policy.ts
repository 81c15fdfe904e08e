/**
 * kubeovn.io/v1 QoSPolicy (pkg/apis/kubeovn/v1/qos-policy.go) as a typed
 * view, checked as Kube-OVN's validateQosPolicy checks it
 * (pkg/controller/qos_policy.go): rateMax and burstMax numbers, an interface
 * name of 1..15 of [A-Za-z0-9_-], direction ingress or egress, an `ip` match
 * value `src|dst <cidr>`, and a NATGW binding only when shared.
 */
import { tryParseCIDR } from '../../model/addr/index.ts';
import type { KubeObject } from '../cluster/types.ts';
import { type Plain, Reader } from './decode.ts';
import { type Decoded, type Meta, meta, objName } from './meta.ts';
import { QOS_POLICY_SUPPORT } from './support/qos-policy.ts';

export interface QoSBandwidthLimitRule {
  readonly name: string;
  readonly interface?: string;
  readonly rateMax?: string;
  readonly burstMax?: string;
  readonly priority?: number;
  readonly direction?: string;
  readonly matchType?: string;
  readonly matchValue?: string;
}

export interface QoSPolicyView extends Meta {
  readonly shared: boolean;
  readonly bindingType: string;
  readonly bandwidthLimitRules: readonly QoSBandwidthLimitRule[];
}

const RATE = /^[0-9]+(\.[0-9]+)?$/;
const IFACE = /^[a-zA-Z0-9_-]{1,15}$/;

/**
 * @example decodeQoSPolicy({ apiVersion: 'kubeovn.io/v1', kind: 'QoSPolicy', metadata: { name: 'q' },
 *   spec: { shared: true, bindingType: 'EIP', bandwidthLimitRules: [] } }).issues // []
 */
export function decodeQoSPolicy(o: KubeObject): Decoded<QoSPolicyView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, QOS_POLICY_SUPPORT);
  const shared = r.bool(spec, 'shared', 'spec') ?? false;
  const bindingType = r.str(spec, 'bindingType', 'spec') ?? '';
  if (!shared && bindingType === 'NATGW')
    r.issue('invalid-value', 'spec.shared', 'a QoSPolicy bound to a NAT gateway (bindingType NATGW) must be shared');
  const rules = r.objs(spec, 'bandwidthLimitRules', 'spec').map((x) => decodeRule(r, x.value, x.at));
  return { value: { ...meta(o, r), shared, bindingType, bandwidthLimitRules: rules }, issues: r.issues };
}

function decodeRule(r: Reader, v: Plain, at: string): QoSBandwidthLimitRule {
  const bad = (k: string, why: string) => r.issue('invalid-value', `${at}.${k}`, `${at}.${k} ${why}`);
  const name = r.str(v, 'name', at) ?? '';
  if (name === '') r.issue('missing-field', `${at}.name`, `${at}.name is required`);
  const out: Record<string, string | number> = { name };
  for (const k of ['interface', 'rateMax', 'burstMax', 'direction', 'matchType', 'matchValue'] as const) {
    const s = r.str(v, k, at);
    if (s !== undefined && s !== '') out[k] = s;
  }
  const priority = r.int(v, 'priority', at);
  if (priority !== undefined) out.priority = priority;
  for (const k of ['rateMax', 'burstMax'] as const)
    if (out[k] !== undefined && !RATE.test(String(out[k])))
      bad(k, `must be a positive number, got ${JSON.stringify(out[k])}`);
  if (out.interface !== undefined && !IFACE.test(String(out.interface)))
    bad('interface', `must be 1-15 letters, digits, '_' or '-', got ${JSON.stringify(out.interface)}`);
  if (out.direction !== undefined && out.direction !== 'ingress' && out.direction !== 'egress')
    bad('direction', `must be ingress or egress, got ${JSON.stringify(out.direction)}`);
  if (out.matchType === 'ip') {
    const [side, cidr, ...rest] = String(out.matchValue ?? '').split(' ');
    if (rest.length > 0 || (side !== 'src' && side !== 'dst') || tryParseCIDR(cidr ?? '') === undefined)
      bad('matchValue', `must be "src <cidr>" or "dst <cidr>", got ${JSON.stringify(out.matchValue ?? '')}`);
  }
  return out as unknown as QoSBandwidthLimitRule;
}
