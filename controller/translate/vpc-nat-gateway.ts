/**
 * VpcNatGateway → its gateway pod's StatefulSet, as Kube-OVN's
 * genNatGwStatefulSet makes it (pkg/controller/vpc_nat_gateway.go, in its
 * StatefulSet mode, one replica): `vpc-nat-gw-<name>` in the gateway's
 * namespace (default kube-system), labels `app: vpc-nat-gw-<name>` and
 * `ovn.kubernetes.io/vpc-nat-gw: "true"`, the pod template annotated with
 * the subnet (`ovn.kubernetes.io/logical_switch`), the `lanIp`
 * (`ovn.kubernetes.io/ip_address`) and the gateway's name
 * (`ovn.kubernetes.io/vpc_nat_gw`), node selector from `selector`
 * (`key: value` entries), tolerations and affinity. The pod's logical switch
 * port is then the pod handler's (`vpc-nat-gw-<name>-0.<ns>`), as in
 * Kube-OVN, where the pod controller creates it too.
 *
 * Not written: the Multus attachment to the external network
 * (`k8s.v1.cni.cncf.io/networks`); its side of the pod is the outside
 * network of the appliance model (sim/appliance/).
 */
import { containsIP, parseIP, tryParseCIDR, tryParseIP } from '../../model/addr/index.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import type { VpcNatGatewayView } from '../../kube/objects/vpc-nat-gateway.ts';
import type { TranslateIssue, Translation } from './issues.ts';

/** Kube-OVN's util.VpcNatGwNamePrefix, VpcNatGatewayLabel and VpcNatGatewayAnnotation. */
export const NAT_GW_PREFIX = 'vpc-nat-gw';
export const NAT_GW_LABEL = 'ovn.kubernetes.io/vpc-nat-gw';
export const NAT_GW_ANNOTATION = 'ovn.kubernetes.io/vpc_nat_gw';

/** `vpc-nat-gw-<name>` (GenNatGwName). */
export const natGwName = (gw: string) => `${NAT_GW_PREFIX}-${gw}`;
/** The StatefulSet's pod (GenNatGwPodName). */
export const natGwPodName = (gw: string) => `${natGwName(gw)}-0`;

/** What the translation reads besides the gateway itself. */
export interface NatGwContext {
  /** The Vpc named by spec.vpc exists. */
  readonly vpcExists: boolean;
  /** The Subnet named by spec.subnet: its VPC and CIDRs, if it exists. */
  readonly subnet?: { readonly vpc: string; readonly cidrs: readonly string[] };
  /** The controller's namespace (`--pod-namespace`, kube-system). */
  readonly podNamespace: string;
}

function check(gw: VpcNatGatewayView, c: NatGwContext): TranslateIssue[] {
  const object = `VpcNatGateway/${gw.name}`;
  const bad = (field: string, message: string): TranslateIssue => ({ code: 'invalid-value', object, field, message });
  const out: TranslateIssue[] = [];
  if (!c.vpcExists) out.push(bad('spec.vpc', `Vpc ${JSON.stringify(gw.vpc)} does not exist`));
  if (c.subnet === undefined) out.push(bad('spec.subnet', `Subnet ${JSON.stringify(gw.subnet)} does not exist`));
  else if (c.vpcExists && c.subnet.vpc !== gw.vpc)
    out.push(bad('spec.subnet', `Subnet ${gw.subnet} is in VPC ${c.subnet.vpc}, not ${gw.vpc}`));
  const ip = tryParseIP(gw.lanIp);
  if (ip === undefined) out.push(bad('spec.lanIp', `${JSON.stringify(gw.lanIp)} is not an IP address`));
  else if (
    c.subnet !== undefined &&
    !c.subnet.cidrs.some((x) => {
      const n = tryParseCIDR(x);
      return n !== undefined && n.family === ip.family && containsIP(n, parseIP(gw.lanIp));
    })
  )
    out.push(bad('spec.lanIp', `${gw.lanIp} is not in Subnet ${gw.subnet} (${c.subnet.cidrs.join(',')})`));
  return out;
}

/** Kube-OVN's GenNatGwSelectors: `key: value` entries; others are skipped. */
function nodeSelector(selector: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of selector) {
    const parts = s.trim().split(':');
    if (parts.length === 2) out[parts[0]!.trim()] = parts[1]!.trim();
  }
  return out;
}

/**
 * The gateway pod's StatefulSet, or why none is made (the gateway is then
 * left as it was: a StatefulSet that exists is kept).
 *
 * @example natGatewayStatefulSet(gw, { vpcExists: true, subnet: { vpc: 'v1', cidrs: ['10.0.1.0/24'] }, podNamespace: 'kube-system' })
 *   .value?.metadata.name // 'vpc-nat-gw-gw1'
 */
export function natGatewayStatefulSet(gw: VpcNatGatewayView, c: NatGwContext): Translation<KubeObject | undefined> {
  const issues = check(gw, c);
  if (issues.length > 0) return { value: undefined, issues };
  const labels = { app: natGwName(gw.name), [NAT_GW_LABEL]: 'true' };
  const sts: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: natGwName(gw.name),
      namespace: gw.podNamespace || c.podNamespace,
      labels,
      ownerReferences: [
        { apiVersion: 'kubeovn.io/v1', kind: 'VpcNatGateway', name: gw.name, uid: gw.uid, controller: true },
      ],
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: {
          labels,
          annotations: {
            [NAT_GW_ANNOTATION]: gw.name,
            'ovn.kubernetes.io/logical_switch': gw.subnet,
            'ovn.kubernetes.io/ip_address': gw.lanIp,
          },
        },
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [{ name: 'vpc-nat-gw', image: 'kubeovn/vpc-nat-gateway', command: ['sleep', 'infinity'] }],
          nodeSelector: nodeSelector(gw.selector),
          ...(gw.tolerations.length > 0 ? { tolerations: gw.tolerations } : {}),
          ...(gw.affinity !== undefined ? { affinity: gw.affinity } : {}),
        },
      },
      updateStrategy: { type: 'RollingUpdate' },
    },
  } as unknown as KubeObject;
  return { value: sts, issues: [] };
}
