/**
 * Vpc → its logical router, static routes and policy routes. The default
 * VPC's router is `ovn-cluster` as in Kube-OVN; a custom VPC's router has the
 * VPC's name. Routes and policies that do not parse are left out and
 * reported, the rest still apply (Kube-OVN's controller logs and retries the
 * whole VPC instead, which leaves none of them in place).
 */
import { MatchParseError, parseMatch } from '../../model/match/index.ts';
import { tryParseCIDR, tryParseIP } from '../../model/addr/index.ts';
import type { LogicalRouter, RouterPolicy, StaticRoute } from '../../model/topology/index.ts';
import type { TranslateIssue, Translation } from './issues.ts';

/** The Vpc fields this translation reads (kubeovn.io/v1 names). */
export interface VpcInput {
  readonly name: string;
  readonly staticRoutes?: readonly {
    readonly policy?: string;
    readonly cidr: string;
    readonly nextHopIP: string;
    readonly routeTable?: string;
    readonly ecmpMode?: string;
  }[];
  readonly policyRoutes?: readonly {
    readonly priority?: number;
    readonly match?: string;
    readonly action?: string;
    readonly nextHopIP?: string;
  }[];
}

export interface VpcRows {
  readonly router: LogicalRouter;
  readonly staticRoutes: readonly StaticRoute[];
  readonly policies: readonly RouterPolicy[];
}

/**
 * @example
 * vpcRows({ name: 'ovn-cluster', staticRoutes: [{ cidr: '0.0.0.0/0', nextHopIP: '100.64.0.1' }] }).value.router.name
 * // 'ovn-cluster'
 */
export function vpcRows(vpc: VpcInput): Translation<VpcRows> {
  const issues: TranslateIssue[] = [];
  const router: LogicalRouter = { name: vpc.name, options: {}, loadBalancers: [], externalIds: { vpc: vpc.name } };
  const staticRoutes: StaticRoute[] = [];
  (vpc.staticRoutes ?? []).forEach((r, i) => {
    const row = staticRoute(vpc.name, r, i);
    if ('code' in row) issues.push(row);
    else staticRoutes.push(row);
  });
  const policies: RouterPolicy[] = [];
  (vpc.policyRoutes ?? []).forEach((p, i) => {
    const row = policyRoute(vpc.name, p, i);
    if ('code' in row) issues.push(row);
    else policies.push(row);
  });
  return { value: { router, staticRoutes, policies }, issues };
}

/** `spec.staticRoutes[i]` → its static route, or why it is left out. */
function staticRoute(
  vpc: string,
  r: NonNullable<VpcInput['staticRoutes']>[number],
  i: number,
): StaticRoute | TranslateIssue {
  const object = `Vpc/${vpc}`;
  const field = `spec.staticRoutes[${i}]`;
  if (tryParseCIDR(r.cidr) === undefined && tryParseIP(r.cidr) === undefined)
    return { code: 'invalid-cidr', object, field: `${field}.cidr`, message: `${JSON.stringify(r.cidr)} is not a CIDR` };
  if (tryParseIP(r.nextHopIP) === undefined)
    return {
      code: 'invalid-address',
      object,
      field: `${field}.nextHopIP`,
      message: `${JSON.stringify(r.nextHopIP)} is not an IP address`,
    };
  return {
    router: vpc,
    ipPrefix: r.cidr,
    nexthop: r.nextHopIP,
    policy: r.policy === 'policySrc' ? 'src-ip' : 'dst-ip',
    routeTable: r.routeTable ?? '',
    options: r.ecmpMode === 'ecmp_symmetric_reply' ? { ecmp_symmetric_reply: 'true' } : {},
    externalIds: { vpc },
  };
}

/** `spec.policyRoutes[i]` → its router policy, or why it is left out. */
function policyRoute(
  vpc: string,
  p: NonNullable<VpcInput['policyRoutes']>[number],
  i: number,
): RouterPolicy | TranslateIssue {
  const object = `Vpc/${vpc}`;
  const field = `spec.policyRoutes[${i}]`;
  const action = p.action ?? '';
  if (action !== 'allow' && action !== 'drop' && action !== 'reroute')
    return {
      code: 'invalid-value',
      object,
      field: `${field}.action`,
      message: `unknown action ${JSON.stringify(action)}`,
    };
  const priority = p.priority ?? 0;
  if (!Number.isInteger(priority) || priority < 0 || priority > 32767)
    return { code: 'invalid-value', object, field: `${field}.priority`, message: `${priority} is not in 0..32767` };
  let match: RouterPolicy['match'];
  try {
    match = parseMatch(p.match ?? '');
  } catch (e) {
    if (!(e instanceof MatchParseError)) throw e;
    return { code: 'invalid-match', object, field: `${field}.match`, message: e.message };
  }
  const nexthops =
    action === 'reroute'
      ? (p.nextHopIP ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  if (action === 'reroute' && (nexthops.length === 0 || nexthops.some((n) => tryParseIP(n) === undefined)))
    return {
      code: 'invalid-address',
      object,
      field: `${field}.nextHopIP`,
      message: `reroute needs next hop addresses, got ${JSON.stringify(p.nextHopIP ?? '')}`,
    };
  return { router: vpc, priority, match, action, nexthops, options: {}, externalIds: { vpc } };
}
