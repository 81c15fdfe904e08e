/**
 * kubeovn.io/v1 SecurityGroup (pkg/apis/kubeovn/v1/security-group.go; see
 * ../support.ts for the states). Kube-OVN's names, priorities and matches
 * (pkg/ovs/ovn-nb-acl.go): controller/translate/security-group.ts.
 */
import type { FieldSupport, KindSupport } from '../support.ts';

const acted = (path: string, note?: string): FieldSupport => ({ path, state: 'acted', ...(note ? { note } : {}) });
const RULE = ['ingressRules', 'egressRules'] as const;
const ruleFields = (field: string, note?: string) => RULE.map((r) => acted(`spec.${r}[].${field}`, note));

export const SECURITY_GROUP_SUPPORT: KindSupport = {
  kind: 'SecurityGroup',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec', 'spec.ingressRules[]', 'spec.egressRules[]'],
  fields: [
    acted('spec.allowSameGroupTraffic'),
    {
      path: 'spec.tier',
      state: 'limited',
      note: 'OVN 23.03 has no ACL tiers: every rule is written without one, ordered by priority only (tier 0)',
      limitation: (v) =>
        v === 1 ? 'tier 1 cannot be expressed on OVN 23.03 (no ACL tiers): the rules are written as tier 0' : undefined,
    },
    acted('spec.ingressRules[]'),
    acted('spec.egressRules[]'),
    ...ruleFields('ipVersion'),
    ...ruleFields('protocol', 'tcp, udp, icmp or all; kovn refuses another value, which Kube-OVN reads as all'),
    ...ruleFields('priority'),
    ...ruleFields('remoteType'),
    ...ruleFields('remoteAddress'),
    ...ruleFields('remoteSecurityGroup'),
    ...ruleFields('portRangeMin'),
    ...ruleFields('portRangeMax'),
    ...ruleFields('localAddress'),
    ...ruleFields('sourcePortRangeMin'),
    ...ruleFields('sourcePortRangeMax'),
    ...RULE.map(
      (r): FieldSupport => ({
        path: `spec.${r}[].policy`,
        state: 'limited',
        note: 'allow and drop (any other value is drop, as in Kube-OVN); pass needs ACL tiers, which OVN 23.03 lacks: a group with a pass rule is refused and its pods isolated (fail closed)',
        limitation: (v) =>
          v === 'pass'
            ? 'policy pass needs ACL tiers (OVN 23.03 has none): the group is refused, its pods isolated'
            : undefined,
      }),
    ),
  ],
};
