/**
 * The rows of each datapath, grouped in one pass per table, so compiling
 * follows the number of rows and not rows × datapaths: no switch scans
 * every port, ACL and QoS rule of the topology, no router every NAT rule,
 * route and policy. Rows keep their table order within a group, the order
 * the per-datapath compilers rely on.
 *
 * `CompileStats` counts the rows the per-datapath compilers go through, so a
 * test can hold the work to the size of the input without timing anything.
 */
import type { ACL, NAT, QoS, RouterPolicy, StaticRoute, Topology } from '../../model/topology/index.ts';
import type { RouterPortInfo, SwitchPortInfo } from './types.ts';

/** Rows the compile went through, per kind (a measure of work, for tests and benchmarks). */
export interface CompileStats {
  /** Ports examined while compiling switches and routers. */
  portsScanned: number;
  /** ACL, QoS, NAT, route and policy rows examined while compiling datapaths. */
  rulesScanned: number;
}

export interface RowsByDatapath {
  readonly switchPorts: ReadonlyMap<string, readonly SwitchPortInfo[]>;
  readonly routerPorts: ReadonlyMap<string, readonly RouterPortInfo[]>;
  /** ACLs on a switch, directly or through a port group with ports on it. */
  readonly acls: ReadonlyMap<string, readonly ACL[]>;
  readonly qos: ReadonlyMap<string, readonly QoS[]>;
  readonly nats: ReadonlyMap<string, readonly NAT[]>;
  readonly staticRoutes: ReadonlyMap<string, readonly StaticRoute[]>;
  readonly policies: ReadonlyMap<string, readonly RouterPolicy[]>;
}

function group<R>(rows: Iterable<R>, keyOf: (r: R) => string): Map<string, R[]> {
  const out = new Map<string, R[]>();
  for (const r of rows) {
    const k = keyOf(r);
    const list = out.get(k);
    if (list === undefined) out.set(k, [r]);
    else list.push(r);
  }
  return out;
}

export function groupByDatapath(
  t: Topology,
  switchPorts: ReadonlyMap<string, SwitchPortInfo>,
  routerPorts: ReadonlyMap<string, RouterPortInfo>,
  pgSwitches: ReadonlyMap<string, ReadonlySet<string>>,
): RowsByDatapath {
  const acls = new Map<string, ACL[]>();
  for (const acl of t.acl.values()) {
    const on = acl.attachTo.kind === 'switch' ? [acl.attachTo.name] : (pgSwitches.get(acl.attachTo.name) ?? []);
    for (const sw of on) {
      const list = acls.get(sw);
      if (list === undefined) acls.set(sw, [acl]);
      else list.push(acl);
    }
  }
  return {
    switchPorts: group(switchPorts.values(), (p) => p.switch),
    routerPorts: group(routerPorts.values(), (p) => p.router),
    acls,
    qos: group(t.qos.values(), (q) => q.switch),
    nats: group(t.nat.values(), (n) => n.router),
    staticRoutes: group(t.staticRoute.values(), (r) => r.router),
    policies: group(t.routerPolicy.values(), (p) => p.router),
  };
}
