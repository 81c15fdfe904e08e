/**
 * A cluster with OVN-native north-south NAT (test/controller/ovn-nat.test.ts
 * on the simulator, test/e2e/ovn-nat-nb.test.ts on real NB): the external
 * subnet `external`, a gateway node, two custom VPCs with `enableExternal`,
 * a FIP, a DNAT rule and an SNAT rule on the lrp EIP of vpc2.
 */
import type { KubeObject } from '../../kube/cluster/types.ts';

const kovn = (kind: string, name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'kubeovn.io/v1',
  kind,
  metadata: { name },
  spec,
});
const pod = (name: string, ns: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns },
  spec: { nodeName: 'worker1', containers: [] },
});
const vpc = (name: string, ns: string, subnet: string) =>
  kovn('Vpc', name, {
    namespaces: [ns],
    defaultSubnet: subnet,
    enableExternal: true,
    staticRoutes: [{ cidr: '0.0.0.0/0', nextHopIP: '172.18.0.1', policy: 'policyDst' }],
  });

/** @example ovnNatObjects().length // 15 */
export function ovnNatObjects(): KubeObject[] {
  return [
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'gw1', labels: { 'ovn.kubernetes.io/external-gw': 'true' } } },
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker1' } },
    kovn('Subnet', 'external', {
      cidrBlock: '172.18.0.0/24',
      gateway: '172.18.0.1',
      excludeIps: ['172.18.0.1..172.18.0.9'],
    }),
    vpc('vpc1', 'ns1', 'net1'),
    kovn('Subnet', 'net1', { vpc: 'vpc1', cidrBlock: '10.1.0.0/24' }),
    vpc('vpc2', 'ns2', 'net2'),
    kovn('Subnet', 'net2', { vpc: 'vpc2', cidrBlock: '10.2.0.0/24' }),
    pod('web', 'ns1'),
    pod('app', 'ns1'),
    pod('client', 'ns2'),
    kovn('OvnEip', 'eip-web', { externalSubnet: 'external', v4Ip: '172.18.0.20' }),
    kovn('OvnFip', 'fip-web', { ovnEip: 'eip-web', ipName: 'web.ns1' }),
    kovn('OvnEip', 'eip-app', { v4Ip: '172.18.0.21' }),
    kovn('OvnDnatRule', 'dnat-app', {
      ovnEip: 'eip-app',
      ipName: 'app.ns1',
      externalPort: '80',
      internalPort: '8080',
      protocol: 'tcp',
    }),
    kovn('OvnSnatRule', 'snat-net2', { ovnEip: 'vpc2-external', vpcSubnet: 'net2' }),
  ];
}
