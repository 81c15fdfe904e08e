/**
 * The handlers the controller runs, one per kind it reconciles; each
 * declares what it watches, the indexes it reads and what it starts after
 * (handler.ts). Listed in the order start-up reconciles them when their
 * `after` leaves a choice.
 */
import { adminNetworkPolicyHandler, baselineAdminNetworkPolicyHandler } from './admin-network-policy.ts';
import type { Handler } from './handler.ts';
import { ippoolHandler } from './ippool.ts';
import { namespaceHandler } from './namespace.ts';
import { networkPolicyHandler } from './network-policy.ts';
import { nodeHandler } from './node.ts';
import { ovnDnatRuleHandler } from './ovn-dnat-rule.ts';
import { ovnEipHandler } from './ovn-eip.ts';
import { ovnFipHandler } from './ovn-fip.ts';
import { ovnSnatRuleHandler } from './ovn-snat-rule.ts';
import { podHandler } from './pod.ts';
import { qosPolicyHandler } from './qos-policy.ts';
import { securityGroupHandler } from './security-group.ts';
import { serviceHandler } from './service.ts';
import { subnetHandler } from './subnet.ts';
import { switchLBRuleHandler } from './switch-lb-rule.ts';
import { vipHandler } from './vip.ts';
import { vpcHandler } from './vpc.ts';
import { vpcNatGatewayHandler } from './vpc-nat-gateway.ts';
import { iptablesDnatHandler, iptablesEipHandler, iptablesFipHandler, iptablesSnatHandler } from './iptables-rules.ts';
import { providerNetworkHandler, vlanHandler } from './provider-network.ts';

export const HANDLERS: readonly Handler[] = [
  subnetHandler,
  ippoolHandler,
  vipHandler,
  vpcHandler,
  nodeHandler,
  namespaceHandler,
  podHandler,
  serviceHandler,
  networkPolicyHandler,
  adminNetworkPolicyHandler,
  baselineAdminNetworkPolicyHandler,
  securityGroupHandler,
  vpcNatGatewayHandler,
  iptablesEipHandler,
  iptablesFipHandler,
  iptablesSnatHandler,
  iptablesDnatHandler,
  switchLBRuleHandler,
  providerNetworkHandler,
  vlanHandler,
  qosPolicyHandler,
  ovnEipHandler,
  ovnFipHandler,
  ovnSnatRuleHandler,
  ovnDnatRuleHandler,
];
