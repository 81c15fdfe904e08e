/**
 * The Subnet handler's egress part: a centralized subnet's gateway nodes
 * (chosen by translate/subnet-gateway.ts from the nodes' readiness and
 * `status.activateGateway`), the status Kube-OVN writes for them and for
 * `natOutgoingPolicyRules`, and the policy routing table check of
 * `externalEgressGateway` (pkg/controller/subnet.go).
 */
import { formatIPv4, formatIPv6 } from '../../model/addr/index.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { decodeNode, decodeSubnet, type SubnetView, selects } from '../../kube/objects/objects.ts';
import { nodePort } from '../translate/names.ts';
import { chooseGateways, type GatewayCandidate, type GatewayChoice, natRuleId } from '../translate/subnet-gateway.ts';
import type { Ctx } from './context.ts';

/**
 * Kube-OVN's checkSubnetConflict on policy routing: two subnets with an
 * external egress gateway may not share a table ID. Of the two the later one
 * (oldest first, then by name) is refused, as kovn refuses the later of two overlapping
 * subnets (Kube-OVN refuses whichever it checks).
 */
export function tableConflict(ctx: Ctx, s: SubnetView): string | undefined {
  if (s.externalEgressGateway === '') return undefined;
  // Oldest first, then by name: a status write (a new resourceVersion) must not reorder the two.
  const key = (o: KubeObject) => `${o.metadata.creationTimestamp ?? ''}\u0000${o.metadata.name}`;
  const ordered = [...ctx.cache('Subnet').list()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  for (const other of ordered) {
    if (other.metadata.name === s.name) return undefined;
    const v = ctx.decode(other, decodeSubnet).value;
    if (v.externalEgressGateway !== '' && v.policyRoutingTableID === s.policyRoutingTableID)
      return `subnet ${s.name} policy routing table ID ${s.policyRoutingTableID} is conflict with subnet ${v.name} policy routing table ID ${v.policyRoutingTableID}`;
  }
  return undefined;
}

/** A centralized subnet's gateway candidates (`gatewayNode: "n1,n2"` or `"n1:ip,..."`, else `gatewayNodeSelectors`), in Kube-OVN's order. */
function gatewayCandidates(ctx: Ctx, s: SubnetView): GatewayCandidate[] {
  const names =
    s.gatewayNode.trim() !== ''
      ? s.gatewayNode.split(',').map((entry) => entry.split(':')[0]!.trim())
      : ctx
          .cache('Node')
          .list()
          .filter((n) => {
            const labels = ctx.decode(n, decodeNode).value.labels;
            return s.gatewayNodeSelectors.some((sel) => selects(sel, labels));
          })
          .map((n) => n.metadata.name)
          .sort();
  const out: GatewayCandidate[] = [];
  for (const name of names) {
    const node = name === '' ? undefined : ctx.cache('Node').get(name);
    if (node === undefined) continue;
    const lease = ctx.ipam.lookup(nodePort(name));
    const joinIps = [
      ...(lease?.v4 !== undefined ? [formatIPv4(lease.v4)] : []),
      ...(lease?.v6 !== undefined ? [formatIPv6(lease.v6)] : []),
    ];
    out.push({ name, ready: ctx.decode(node, decodeNode).value.ready, joinIps });
  }
  return out;
}

/** The gateways of a centralized subnet of the default VPC (none for the others), chosen from `status.activateGateway` on. */
export function centralizedGateways(ctx: Ctx, s: SubnetView, o: KubeObject, vpc: string): GatewayChoice | undefined {
  if (s.gatewayType !== 'centralized' || vpc !== ctx.settings.clusterRouter) return undefined;
  const status = (typeof o.status === 'object' && o.status !== null ? o.status : {}) as Record<string, unknown>;
  const previous = typeof status.activateGateway === 'string' ? status.activateGateway : '';
  return chooseGateways(gatewayCandidates(ctx, s), s.enableEcmp, previous);
}

/** Kube-OVN's reasons for a centralized subnet without a working gateway (reconcileOvnDefaultVpcRoute). */
export function gatewayProblem(
  s: SubnetView,
  g: GatewayChoice | undefined,
): { reason: string; message: string } | undefined {
  if (g === undefined) return undefined;
  if (s.gatewayNode.trim() === '' && s.gatewayNodeSelectors.length === 0)
    return {
      reason: 'NoReadyGateway',
      message: `subnet ${s.name} Spec.GatewayNode or Spec.GatewayNodeSelectors must be specified for centralized gateway type`,
    };
  if (g.noneReady) return { reason: 'NoActiveGatewayFound', message: `subnet ${s.name} gws are not ready` };
  return undefined;
}

/** `activateGateway` (primary-backup) and `natOutgoingPolicyRules` with their IDs, as Kube-OVN writes them. */
export function egressStatus(s: SubnetView, g: GatewayChoice | undefined): Record<string, unknown> {
  const rules = s.natOutgoing
    ? s.natOutgoingPolicyRules.map((r, i) => ({
        ruleID: natRuleId(s.name, i, r),
        match: { ...(r.srcIPs !== '' ? { srcIPs: r.srcIPs } : {}), ...(r.dstIPs !== '' ? { dstIPs: r.dstIPs } : {}) },
        action: r.action,
      }))
    : [];
  return { activateGateway: g?.active ?? '', natOutgoingPolicyRules: rules };
}
