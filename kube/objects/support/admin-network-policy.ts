/**
 * AdminNetworkPolicy and BaselineAdminNetworkPolicy
 * (policy.networking.k8s.io/v1alpha1): what kovn does with each spec field
 * (see ../support.ts for the states; controller/translate/admin-network-policy.ts).
 */
import type { FieldSupport, KindSupport } from '../support.ts';
import { acted as actedAnnotation, OVN } from './annotations.ts';

const acted = (path: string, note?: string): FieldSupport => ({ path, state: 'acted', ...(note ? { note } : {}) });
const LOG = 'the ACL rows of the actions listed get log=true (drop: severity warning), as Kube-OVN writes them';

const common = (egressPeers: readonly string[]): FieldSupport[] => [
  acted('spec.subject', 'namespaces or pods (namespaceSelector and podSelector): the port group of the pods'),
  acted('spec.subject.namespaces'),
  acted('spec.subject.pods'),
  acted('spec.ingress', 'rules in order, the first that matches decides'),
  acted('spec.ingress[].name', "part of the rule's address set names"),
  acted('spec.ingress[].action'),
  acted('spec.ingress[].from'),
  acted('spec.ingress[].ports', "portNumber, portRange, and namedPort (the destination pod's own port of that name)"),
  acted('spec.egress'),
  acted('spec.egress[].name', "part of the rule's address set names"),
  acted('spec.egress[].action'),
  acted('spec.egress[].to', egressPeers.join(', ')),
  acted('spec.egress[].ports', "portNumber, portRange, and namedPort (the destination pod's own port of that name)"),
];

export const ADMIN_NETWORK_POLICY_SUPPORT: KindSupport = {
  kind: 'AdminNetworkPolicy',
  apiVersion: 'policy.networking.k8s.io/v1alpha1',
  closed: ['spec'],
  fields: [
    acted('spec.priority', 'ACL priority 30000 - 100 × priority - rule index (Kube-OVN: at most 99, unique)'),
    ...common(['namespaces', 'pods', 'networks (CIDRs, pod addresses included)', "nodes (the nodes' InternalIPs)"]),
  ],
  annotations: [actedAnnotation(`${OVN}log_acl_actions`, LOG)],
};

export const BASELINE_ADMIN_NETWORK_POLICY_SUPPORT: KindSupport = {
  kind: 'BaselineAdminNetworkPolicy',
  apiVersion: 'policy.networking.k8s.io/v1alpha1',
  closed: ['spec'],
  fields: common(['namespaces', 'pods', 'networks (CIDRs, pod addresses included)', "nodes (the nodes' InternalIPs)"]),
  annotations: [actedAnnotation(`${OVN}log_acl_actions`, LOG)],
};
