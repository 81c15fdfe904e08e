/**
 * SecurityGroup (kubeovn.io/v1) → its port group `ovn.sg.<name>`, address
 * sets and ACLs (translate/security-group.ts), the deny-all group, and its
 * status as Kube-OVN writes it (portGroup, allowSameGroupTraffic,
 * ingressLastSyncSuccess, egressLastSyncSuccess). The pods naming a group in
 * `ovn.kubernetes.io/security_groups` contribute their ports and addresses
 * (pod.ts, securityGroupContributions), so a pod's change is its own members.
 *
 * A group that does not decode or translate (a bad rule, a pass rule, a
 * remote group that does not exist) fails closed: it keeps its port group,
 * sets and base ACLs with no rule and no same-group allow, so its pods (in
 * the deny-all group) get nothing but ARP, ND, DHCP and VRRP; it is reported
 * (`InvalidSecurityGroup`, with the pods naming it as scope), its status says
 * the sync failed, and an event names the field.
 */
import { deletionChanged } from '../../kube/runtime/changes.ts';
import { decodeSecurityGroup, type SecurityGroupView } from '../../kube/objects/objects.ts';
import { isBlocking } from '../../kube/objects/decode.ts';
import type { VerdictScope } from '../../kube/objects/warnings.ts';
import type { Contribution, TableRow } from '../desired/store.ts';
import { DENY_ALL_SG, denyAllRows, securityGroupRows, sgAddressSet, sgPortGroup } from '../translate/security-group.ts';
import { type Ctx, describeIssues, sameJson } from './context.ts';
import { ALL, type Handler } from './handler.ts';

/** The index of pods by the security groups they name (declared by the pod handler). */
export const SECURITY_GROUP_INDEX = 'securityGroups';

/** The owner of the deny-all group's rows: no SecurityGroup object has this name (it is refused). */
const DENY_ALL_OWNER = { kind: 'SecurityGroup', name: DENY_ALL_SG } as const;

/** The security groups that exist (not being deleted): a pod in one of them is in the deny-all group. */
export function existingSecurityGroups(ctx: Ctx): Set<string> {
  const out = new Set<string>();
  for (const o of ctx.cache('SecurityGroup').list())
    if (o.metadata.deletionTimestamp === undefined) out.add(o.metadata.name);
  return out;
}

/**
 * Reconciles one group; every reconcile also (re)states the deny-all group,
 * which Kube-OVN creates at start-up and never deletes.
 */
export async function reconcileSecurityGroup(ctx: Ctx, name: string): Promise<void> {
  const deny = denyAllRows();
  ctx.committer.set(DENY_ALL_OWNER, {
    rows: [{ table: 'portGroup', row: deny.portGroup }, ...deny.acls.map((row): TableRow => ({ table: 'acl', row }))],
  });
  const owner = { kind: 'SecurityGroup', name };
  const o = ctx.cache('SecurityGroup').get(name);
  if (o === undefined || name === DENY_ALL_SG) {
    if (name !== DENY_ALL_SG) ctx.committer.delete(owner);
    if (o !== undefined) await refuseReserved(ctx, name, o.metadata.uid);
    return;
  }
  const d = ctx.decode(o, decodeSecurityGroup);
  const sg = d.value;
  const input = (closed: boolean) => ({
    name,
    allowSameGroupTraffic: closed ? false : sg.allowSameGroupTraffic,
    ingressRules: closed ? [] : sg.ingressRules,
    egressRules: closed ? [] : sg.egressRules,
    known: existingSecurityGroups(ctx),
  });
  const invalid = d.issues.filter(isBlocking);
  let t = securityGroupRows(input(invalid.length > 0));
  const failed = [...invalid, ...t.issues];
  if (failed.length > 0) t = securityGroupRows(input(true));
  const ref = { kind: 'SecurityGroup', name, uid: sg.uid };
  ctx.report(ref, 'reconcile', failed.length === 0 ? [] : [problem(ctx, name, failed)]);
  if (failed.length > 0) await ctx.event(ref, 'Warning', 'InvalidSecurityGroup', describeIssues(failed));
  ctx.committer.set(owner, {
    rows: [
      { table: 'portGroup', row: t.value.portGroup },
      ...t.value.addressSets.map((row): TableRow => ({ table: 'addressSet', row })),
      ...t.value.acls.map((row): TableRow => ({ table: 'acl', row })),
    ],
  });
  await writeStatus(ctx, o.status, sg, failed.length === 0);
}

function problem(ctx: Ctx, name: string, failed: readonly { field: string; message: string }[]) {
  return {
    code: 'InvalidSecurityGroup',
    field: failed[0]!.field,
    message: `not translated (${failed.map((i) => i.message).join('; ')}): the pods naming it are isolated but for ARP, ND, DHCP and VRRP (fail closed)`,
    scope: podsNaming(ctx, name),
  };
}

/** The pods naming the group: what a verdict built on a refused group depends on. */
function podsNaming(ctx: Ctx, name: string): VerdictScope[] {
  return [...ctx.cache('Pod').byIndex(SECURITY_GROUP_INDEX, name)].map((p) => ({
    kind: 'pod' as const,
    namespace: p.metadata.namespace ?? 'default',
    name: p.metadata.name,
  }));
}

async function refuseReserved(ctx: Ctx, name: string, uid: string | undefined): Promise<void> {
  const message = `the name ${name} is Kube-OVN's own deny-all group (${sgPortGroup(name)}): refused`;
  ctx.report({ kind: 'SecurityGroup', name }, 'reconcile', [
    { code: 'InvalidSecurityGroup', field: 'metadata.name', message, scope: podsNaming(ctx, name) },
  ]);
  await ctx.event({ kind: 'SecurityGroup', name, ...(uid ? { uid } : {}) }, 'Warning', 'InvalidSecurityGroup', message);
}

/** Kube-OVN's status fields (its md5s of the rules are not written: they are its own change detection). */
async function writeStatus(ctx: Ctx, have: unknown, sg: SecurityGroupView, synced: boolean): Promise<void> {
  const status = {
    portGroup: sgPortGroup(sg.name),
    allowSameGroupTraffic: sg.allowSameGroupTraffic,
    ingressLastSyncSuccess: synced,
    egressLastSyncSuccess: synced,
  };
  const h = (typeof have === 'object' && have !== null ? have : {}) as Record<string, unknown>;
  if (sameJson(Object.fromEntries(Object.keys(status).map((k) => [k, h[k]])), status)) return;
  await ctx.afterCommit('SecurityGroup', { name: sg.name }, () =>
    ctx.cluster.patch({ kind: 'SecurityGroup', name: sg.name }, { status }, { subresource: 'status' }).then(() => {}),
  );
}

export const securityGroupHandler: Handler = {
  kind: 'SecurityGroup',
  after: [],
  watches: [
    { kind: 'SecurityGroup' },
    // A rule naming a remote group is written only while that group exists.
    { kind: 'SecurityGroup', when: deletionChanged, map: () => ALL },
  ],
  reconcile: (ctx, key) => reconcileSecurityGroup(ctx, key.name),
};

/**
 * A pod's memberships in the groups it names (syncSgLogicalPort,
 * updateDenyAllSgPorts): its port in each `ovn.sg.<name>`, its addresses
 * (port_security's when set, else addresses': the addresses after the MAC) in
 * each `ovn.sg.<name>.associated.v4|v6`, and its port in the deny-all group
 * when at least one of them exists. Members of a group that does not exist
 * wait in the store until it does.
 */
export function securityGroupContributions(
  ctx: Ctx,
  port: { readonly name: string; readonly addresses: readonly string[]; readonly portSecurity: readonly string[] },
  groups: readonly string[],
): Contribution[] {
  if (groups.length === 0) return [];
  const entries = port.portSecurity.length > 0 ? port.portSecurity : port.addresses;
  const addrs = entries.flatMap((e) => e.split(/\s+/).slice(1)).filter((a) => a !== '');
  const v4 = addrs.filter((a) => !a.includes(':'));
  const v6 = addrs.filter((a) => a.includes(':'));
  const out: Contribution[] = [];
  for (const sg of groups) {
    out.push({ table: 'portGroup', key: sgPortGroup(sg), column: 'ports', members: [port.name] });
    if (v4.length > 0) out.push({ table: 'addressSet', key: sgAddressSet(sg, 'v4'), column: 'addresses', members: v4 });
    if (v6.length > 0) out.push({ table: 'addressSet', key: sgAddressSet(sg, 'v6'), column: 'addresses', members: v6 });
  }
  // As updateDenyAllSgPorts: a port naming at least one group whose port group exists (the deny-all one always does).
  const cache = ctx.cache('SecurityGroup');
  const exists = (sg: string) => {
    const o = cache.get(sg);
    return sg === DENY_ALL_SG || (o !== undefined && o.metadata.deletionTimestamp === undefined);
  };
  if (groups.some(exists))
    out.push({ table: 'portGroup', key: sgPortGroup(DENY_ALL_SG), column: 'ports', members: [port.name] });
  return out;
}
