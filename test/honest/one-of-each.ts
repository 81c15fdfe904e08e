/**
 * A scenario with, per kind, one field or annotation kovn does not act on (and
 * a kind it does not handle), and probes that touch each: 10 warnings, 5 of
 * the 9 probes unsure (the other four touch only what changes no verdict, or
 * what is acted on: the IPPool's fields, the address a Vip reserves).
 */
import { join3, kubeovn, pod, scenarioDoc } from './run-yaml.ts';

/** Per kind: an object with something kovn does not act on, and whether a verdict may depend on it. */
export const ONE_OF_EACH = join3(
  kubeovn('Subnet', 'under', '{cidrBlock: 10.50.0.0/24, enableExternalLBAddress: true, namespaces: [u]}'),
  kubeovn('Vpc', 'v1', '{enableExternal: true, namespaces: [vv]}'),
  kubeovn('Subnet', 'v1s', '{cidrBlock: 10.60.0.0/24, vpc: v1, namespaces: [vv]}'),
  kubeovn('Subnet', 'poolnet', '{cidrBlock: 10.61.0.0/24, namespaces: [pooled]}'),
  kubeovn('IPPool', 'p1', '{subnet: poolnet, ips: [10.61.0.10..10.61.0.20]}'),
  kubeovn('IP', 'ipobj', '{podName: plain, namespace: default, subnet: ovn-default, attachIps: [192.168.9.9]}'),
  kubeovn('Vip', 'vip1', '{subnet: ovn-default, v4ip: 10.16.8.8, attachSubnets: [poolnet]}'),
  'apiVersion: v1\nkind: Namespace\nmetadata: {name: quiet, annotations: {ovn.kubernetes.io/network_policy_enforcement: lax}}\n',
  'apiVersion: v1\nkind: Node\nmetadata: {name: n1, annotations: {ovn.kubernetes.io/tunnel_interface: eth1}}\n',
  'apiVersion: v1\nkind: Service\nmetadata: {name: local, namespace: default}\nspec: {selector: {app: plain}, internalTrafficPolicy: Local, ports: [{port: 80}]}\n',
  'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: lax, namespace: np, annotations: {ovn.kubernetes.io/network_policy_for: np/attach}}\nspec: {podSelector: {matchLabels: {app: guarded}}, ingress: [{}]}\n',
  pod('u1', 'u'),
  pod('v1p', 'vv'),
  pod('pp', 'pooled', 'annotations: {ovn.kubernetes.io/ip_pool: p1}'),
  pod('ngw', 'default', 'annotations: {ovn.kubernetes.io/north_gateway: 10.16.0.254}'),
  pod('rated', 'default', 'annotations: {ovn.kubernetes.io/ingress_rate: "10"}'),
  pod('plain'),
  pod('q', 'quiet'),
  pod('guarded', 'np'),
  scenarioDoc('one-of-each', [
    '{from: default/plain, to: u/u1, protocol: TCP, port: 80, allowed: true}',
    '{from: vv/v1p, to: 10.60.0.1, protocol: ICMP, allowed: true}',
    '{from: default/plain, to: pooled/pp, protocol: TCP, port: 80, allowed: true}',
    '{from: default/plain, to: default/ngw, protocol: TCP, port: 80, allowed: true}',
    '{from: default/plain, to: default/rated, protocol: TCP, port: 80, allowed: true}',
    '{from: default/rated, to: quiet/q, protocol: TCP, port: 80, allowed: true}',
    '{from: quiet/q, to: svc/default/local, protocol: TCP, port: 80, allowed: true}',
    '{from: default/plain, to: np/guarded, protocol: TCP, port: 80, allowed: true}',
    '{from: default/rated, to: 10.16.8.8, protocol: TCP, port: 80, allowed: false}',
  ]),
);
