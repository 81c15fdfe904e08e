/**
 * The controller's metrics, on a prom-client registry (docs/metrics.md):
 *
 * - Kube-OVN's names where Kube-OVN has one: `subnet_available_ip_count`
 *   and `subnet_used_ip_count` {subnet_name, protocol, subnet_cidr} (read
 *   from the IPAM at each scrape, as Kube-OVN's exporter reads its Subnet
 *   status), and `ovs_client_request_latency_milliseconds` {db, method,
 *   code} around the backend's apply (`meteredBackend`, a wrapper: db
 *   `ovn-nb` on OVN, the backend's kind otherwise; method `transact`; code
 *   0 or 1 as Kube-OVN's).
 * - kovn's own, `kovn_` prefixed: the committer's batches, transactions,
 *   operations, failures, drift repaired and rows pending; the IPAM's
 *   leases; objects with warnings.
 *
 * The work queues' metrics are client-go's (kube/observe), named by kind.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Backend } from '../backends/backend.ts';
import type { Clock } from '../kube/runtime/clock.ts';
import type { Controller } from './controller.ts';

const LABELS = ['subnet_name', 'protocol', 'subnet_cidr'] as const;

/** Kube-OVN's `protocol` label of a subnet: its families. */
const protocolOf = (v4: boolean, v6: boolean): string => (v4 && v6 ? 'Dual' : v6 ? 'IPv6' : 'IPv4');

/**
 * Registers the controller's gauges, read from `controller()` at each
 * scrape (undefined while it has not started: a replica that does not lead
 * reports none).
 *
 * @example registerControllerMetrics(registry, () => running);
 */
export function registerControllerMetrics(registry: Registry, controller: () => Controller | undefined): void {
  const registers = [registry];
  const labelNames = LABELS;
  new Gauge({
    name: 'subnet_available_ip_count',
    help: 'The available num of ip address in subnet.',
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const s of subnets(controller())) this.set(s.labels, s.available);
    },
  });
  new Gauge({
    name: 'subnet_used_ip_count',
    help: 'The used num of ip address in subnet.',
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const s of subnets(controller())) this.set(s.labels, s.used);
    },
  });
  const stat = (name: string, help: string, read: (c: Controller) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        const c = controller();
        this.reset();
        if (c !== undefined) this.inc(read(c));
      },
    });
  stat('kovn_commit_batches_total', 'Batches of desired rows the committer flushed.', (c) => c.committer.stats.flushes);
  stat(
    'kovn_commit_transactions_total',
    'Backend transactions the committer made.',
    (c) => c.committer.stats.transactions,
  );
  stat('kovn_commit_operations_total', 'Operations the committer applied.', (c) => c.committer.stats.operations);
  stat('kovn_commit_failures_total', 'Applies that failed (retried with backoff).', (c) => c.committer.stats.failures);
  stat('kovn_commit_drift_total', 'Changes of our rows by others, put back.', (c) => c.committer.stats.drifted);
  const gauge = (name: string, help: string, read: (c: Controller) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const c = controller();
        this.set(c === undefined ? 0 : read(c));
      },
    });
  gauge(
    'kovn_commit_pending_rows',
    'Desired rows changed and not yet committed.',
    (c) => c.committer.stats.pendingRows,
  );
  gauge('kovn_ipam_leases', 'Addresses the IPAM holds for an owner (pods, nodes, IPs).', (c) => c.ipam.size);
  gauge('kovn_objects_with_warnings', 'Objects kovn does not fully act on or refuses.', (c) => c.diagnostics.size);
}

interface SubnetUsage {
  readonly labels: Record<(typeof LABELS)[number], string>;
  readonly used: number;
  readonly available: number;
}

/** Kube-OVN's exporter's rule: used is IPv6's for IPv6 subnets, else IPv4's; available the smaller of both for dual stack. */
function subnets(c: Controller | undefined): SubnetUsage[] {
  if (c === undefined) return [];
  const out: SubnetUsage[] = [];
  for (const name of c.ipam.subnetNames()) {
    const view = c.ipam.subnet(name)!;
    const { v4, v6 } = view.counters();
    const labels = { subnet_name: name, protocol: protocolOf(!!v4, !!v6), subnet_cidr: view.config.spec.cidrBlock };
    const a4 = v4 === undefined ? undefined : Number(v4.available);
    const a6 = v6 === undefined ? undefined : Number(v6.available);
    const available = a4 !== undefined && a6 !== undefined ? Math.min(a4, a6) : (a4 ?? a6 ?? 0);
    const used = v4 !== undefined ? Number(v4.used) : Number(v6?.used ?? 0);
    out.push({ labels, used, available });
  }
  return out;
}

/**
 * The backend with its applies timed into `ovs_client_request_latency_milliseconds`.
 *
 * @example const backend = meteredBackend(await openOvnBackend(nb), { registry, clock: realClock });
 */
export function meteredBackend(inner: Backend, o: { readonly registry: Registry; readonly clock: Clock }): Backend {
  const latency = new Histogram({
    name: 'ovs_client_request_latency_milliseconds',
    help: 'The latency of the OVSDB transactions the controller makes, in milliseconds.',
    labelNames: ['db', 'method', 'code'],
    buckets: Array.from({ length: 10 }, (_, i) => 2 ** i),
    registers: [o.registry],
  });
  const db = inner.kind === 'ovn' ? 'ovn-nb' : inner.kind;
  return {
    kind: inner.kind,
    apply: async (plan, opts) => {
      const start = o.clock.now();
      let code = '0';
      try {
        return await inner.apply(plan, opts);
      } catch (err) {
        code = '1';
        throw err;
      } finally {
        latency.observe({ db, method: 'transact', code }, o.clock.now() - start);
      }
    },
    read: () => inner.read(),
    readRows: (keys) => inner.readRows(keys),
    watch: (listener) => inner.watch(listener),
    close: () => inner.close(),
  };
}
