/**
 * controller/translate: Kubernetes and kubeovn.io/v1 objects → model rows,
 * pure (objects in, rows and typed issues out). Handlers call these and hand
 * the rows to the desired-state store; nothing here talks to a cluster or a
 * backend. Names and priorities are Kube-OVN's (names.ts).
 */
export * from './issues.ts';
export * from './names.ts';
export { type SubnetInput, type SubnetRows, subnetCidrs, subnetGateways, subnetRows } from './subnet.ts';
export * from './network-policy.ts';
export * from './service.ts';
export * from './pod.ts';
export * from './node.ts';
export { type VpcInput, type VpcRows, vpcRows } from './vpc.ts';
