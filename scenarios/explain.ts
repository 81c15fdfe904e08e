/**
 * Why a probe was denied, in one line a Kubernetes user can act on: the
 * drop the simulator recorded (datapath, stage, NB row), traced back to the
 * object the controller made that row for. The controller marks its rows
 * (controller/translate): a NetworkPolicy's ACLs sit on its port group,
 * whose `external_ids:np` names the policy; a Subnet's ACLs sit on its
 * switch (`external_ids:subnet` on the switch), its own `spec.acls` carry
 * `external_ids:subnet` themselves; router policies and routes carry
 * `subnet`, `node` or `vpc`. What no object explains is said as OVN would
 * (the stage and the rule).
 */
import type { ACL, RouterPolicy, StaticRoute, Topology } from '../model/topology/index.ts';
import { describePriority, type SimDrop, type SimResult } from '../sim/index.ts';

function aclOwner(acl: ACL, t: Topology): string | undefined {
  if (acl.attachTo.kind === 'port-group') {
    const pg = t.portGroup.get(acl.attachTo.name);
    const np = pg?.externalIds.np;
    if (np !== undefined) return `NetworkPolicy ${np}`;
    const node = pg?.externalIds.node;
    if (node !== undefined) return `node ${node}'s port group`;
    return `port group ${acl.attachTo.name}`;
  }
  // A Subnet's switch carries its name: its private ACLs are marked by the switch, its own acls by themselves.
  const subnet = acl.externalIds.subnet ?? t.switch.get(acl.attachTo.name)?.externalIds.subnet;
  if (subnet !== undefined) return `Subnet ${subnet}`;
  return `switch ${acl.attachTo.name}`;
}

/** The ACL's action and priority, and the logical flow's priority as the trace shows it (sim/trace.ts describePriority). */
function aclHow(acl: ACL, flowPriority: number): string {
  return `ACL ${acl.action}, ${describePriority({ priority: flowPriority, rowPriority: acl.priority })}`;
}

function aclWhy(acl: ACL, owner: string, flowPriority: number): string {
  const dir = acl.direction === 'to-lport' ? 'ingress' : 'egress';
  const how = aclHow(acl, flowPriority);
  if (owner.startsWith('NetworkPolicy ')) {
    // Kube-OVN's policy ACLs: 2000 drops what no rule of the policy admits, 2001 admits, below 2000 excepts.
    if (acl.action === 'drop' && acl.priority === 2000) return `${owner}: no ${dir} rule admits it (${how})`;
    return `${owner}, ${dir} (${how})`;
  }
  if (owner.startsWith('Subnet ') && acl.externalIds.subnet !== undefined)
    return `${owner}'s spec.acls, ${dir} (${how})`;
  if (owner.startsWith('Subnet ') && acl.action === 'drop' && acl.priority === 1000)
    return `${owner} is private: not in its allowSubnets (${how})`;
  return `${owner}, ${dir} (${how})`;
}

function ownerOf(ids: Readonly<Record<string, string>>): string | undefined {
  if (ids.subnet !== undefined) return `Subnet ${ids.subnet}`;
  if (ids.node !== undefined) return `node ${ids.node}`;
  if (ids.vpc !== undefined) return `Vpc ${ids.vpc}`;
  return undefined;
}

function findRow<R>(table: ReadonlyMap<string, R>, key: string | undefined): R | undefined {
  return key === undefined ? undefined : table.get(key);
}

/**
 * @example explainDrop({ datapath: 'data', stage: 'ls_out_acl', reason: 'dropped by ACL', rule: {...} }, t)
 *   // 'NetworkPolicy data/db-from-web: no ingress rule admits it (ACL drop, priority 2000, flow priority 3000)'
 */
export function explainDrop(drop: SimDrop, t: Topology): string {
  const where = `${drop.datapath} ${drop.stage}`;
  const rule = drop.rule;
  if (rule?.kind === 'acl') {
    const acl = findRow(t.acl, rule.key);
    if (acl !== undefined) return aclWhy(acl, aclOwner(acl, t) ?? `ACL ${rule.key}`, rule.priority);
  }
  if (rule?.kind === 'policy') {
    const p: RouterPolicy | undefined = findRow(t.routerPolicy, rule.key);
    const owner = p === undefined ? undefined : ownerOf(p.externalIds);
    if (p !== undefined)
      return `router policy of ${owner ?? `router ${p.router}`}: ${p.action} at priority ${p.priority} (${where})`;
  }
  if (rule?.kind === 'route') {
    const r: StaticRoute | undefined = findRow(t.staticRoute, rule.key);
    const owner = r === undefined ? undefined : ownerOf(r.externalIds);
    if (r !== undefined) return `${drop.reason}: route ${r.ipPrefix} of ${owner ?? `router ${r.router}`} (${where})`;
  }
  if (drop.stage === 'lr_in_ip_routing' && drop.reason === 'no route')
    return `no route to host: router ${drop.datapath} has no route for the destination (${where})`;
  if (rule?.kind === 'lb' && drop.reason.includes('has no backends'))
    return `no endpoint: ${drop.reason} (load balancer ${rule.name ?? rule.key}, ${where})`;
  return `dropped in ${where}: ${drop.reason}`;
}

/**
 * A packet that left, but not where the probe wanted it: where it went, and
 * the static route or router policy that sent it there when one did (from a
 * traced run of the same packet).
 *
 * @example explainElsewhere(traced, t, ['appliance.team-a'], ['high.team-a2'])
 *   // 'went to appliance.team-a, not high.team-a2: route 10.121.0.128/25 of Vpc vpc-a (...)'
 */
export function explainElsewhere(
  traced: SimResult,
  t: Topology,
  went: readonly string[],
  targets: readonly string[],
): string {
  const base = `went to ${went.join(', ')}, not ${targets.join(', ')}`;
  const decided = [...traced.stages]
    .reverse()
    .find((st) => (st.rule?.kind === 'route' || st.rule?.kind === 'policy') && st.rule.key !== undefined);
  const rule = decided?.rule;
  if (rule?.kind === 'route') {
    const r = findRow(t.staticRoute, rule.key);
    if (r !== undefined)
      return `${base}: route ${r.ipPrefix} via ${r.nexthop} of ${ownerOf(r.externalIds) ?? `router ${r.router}`}`;
  }
  if (rule?.kind === 'policy') {
    const p = findRow(t.routerPolicy, rule.key);
    if (p !== undefined && p.action === 'reroute')
      return `${base}: router policy of ${ownerOf(p.externalIds) ?? `router ${p.router}`} (priority ${p.priority}, reroute)`;
  }
  return base;
}
