/**
 * The handlers the controller runs, one per kind it reconciles; each
 * declares what it watches, the indexes it reads and what it starts after
 * (handler.ts). Listed in the order start-up reconciles them when their
 * `after` leaves a choice.
 */
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
import { serviceHandler } from './service.ts';
import { subnetHandler } from './subnet.ts';
import { vpcHandler } from './vpc.ts';

export const HANDLERS: readonly Handler[] = [
  subnetHandler,
  ippoolHandler,
  vpcHandler,
  nodeHandler,
  namespaceHandler,
  podHandler,
  serviceHandler,
  networkPolicyHandler,
  ovnEipHandler,
  ovnFipHandler,
  ovnSnatRuleHandler,
  ovnDnatRuleHandler,
];
