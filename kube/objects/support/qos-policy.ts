/**
 * kubeovn.io/v1 QoSPolicy (pkg/apis/kubeovn/v1/qos-policy.go; see
 * ../support.ts for the states). Kube-OVN applies a policy's rules as tc
 * rules inside the VPC NAT gateway pod (bindingType EIP: the IptablesEIP's
 * address, addEipQoSInPod; NATGW: the gateway's interface, execNatGwQoSInPod)
 * and writes no NB QoS row for either: kovn writes none either, checks the
 * policy as Kube-OVN does and writes its status. A rate changes no verdict.
 */
import type { FieldSupport, KindSupport } from '../support.ts';

const TC =
  'Kube-OVN applies it as a tc rule in the VPC NAT gateway pod, not in OVN (no NB QoS row): kovn checks it and copies it to the status; rates are not modelled and change no verdict';
const rule = (k: string): FieldSupport => ({
  path: `spec.bandwidthLimitRules[].${k}`,
  state: 'limited',
  note: TC,
  verdict: 'none',
});

export const QOS_POLICY_SUPPORT: KindSupport = {
  kind: 'QoSPolicy',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec', 'spec.bandwidthLimitRules[]'],
  fields: [
    { path: 'spec.shared', state: 'acted', note: 'a NATGW binding must be shared, as Kube-OVN checks' },
    { path: 'spec.bindingType', state: 'acted', note: 'EIP or NATGW; copied to the status' },
    { path: 'spec.bandwidthLimitRules[]', state: 'limited', note: TC, verdict: 'none' },
    ...['name', 'interface', 'rateMax', 'burstMax', 'priority', 'direction', 'matchType', 'matchValue'].map(rule),
  ],
};
