/**
 * The support table of every kind the controller reads (../support.ts says
 * what the tables mean). The registry (../../registry.ts) names each kind's
 * table; docs/fields.md is generated from them (`npm run gen:fields`), and a
 * test keeps it in step.
 */
import { ADMIN_NETWORK_POLICY_SUPPORT, BASELINE_ADMIN_NETWORK_POLICY_SUPPORT } from './admin-network-policy.ts';
import { ENDPOINT_SLICE_SUPPORT } from './endpoint-slice.ts';
import { IP_SUPPORT } from './ip.ts';
import { IPPOOL_SUPPORT } from './ippool.ts';
import { NAMESPACE_SUPPORT } from './namespace.ts';
import { NETWORK_POLICY_SUPPORT } from './network-policy.ts';
import { NODE_SUPPORT } from './node.ts';
import { POD_SUPPORT } from './pod.ts';
import { QOS_POLICY_SUPPORT } from './qos-policy.ts';
import { SECURITY_GROUP_SUPPORT } from './security-group.ts';
import { SERVICE_SUPPORT } from './service.ts';
import { SUBNET_SUPPORT } from './subnet.ts';
import { VPC_SUPPORT } from './vpc.ts';
import { SWITCH_LB_RULE_SUPPORT } from './switch-lb-rule.ts';
import { VIP_SUPPORT } from './vip.ts';
import { PROVIDER_NETWORK_SUPPORT, VLAN_SUPPORT } from './underlay.ts';
import { NETWORK_ATTACHMENT_DEFINITION_SUPPORT } from './network-attachment-definition.ts';

export {
  ADMIN_NETWORK_POLICY_SUPPORT,
  BASELINE_ADMIN_NETWORK_POLICY_SUPPORT,
  ENDPOINT_SLICE_SUPPORT,
  IP_SUPPORT,
  IPPOOL_SUPPORT,
  NAMESPACE_SUPPORT,
  NETWORK_POLICY_SUPPORT,
  NODE_SUPPORT,
  POD_SUPPORT,
  QOS_POLICY_SUPPORT,
  SECURITY_GROUP_SUPPORT,
  SERVICE_SUPPORT,
  SUBNET_SUPPORT,
  VPC_SUPPORT,
  SWITCH_LB_RULE_SUPPORT,
  VIP_SUPPORT,
  PROVIDER_NETWORK_SUPPORT,
  VLAN_SUPPORT,
  NETWORK_ATTACHMENT_DEFINITION_SUPPORT,
};
