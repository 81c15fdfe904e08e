/**
 * `kovn bench ovsdb`: how fast logical switch ports reach a fresh NB.
 * Measures and reports; never fails on a figure. Targets (issue 3):
 * ratio_vs_raw >= 0.9, >= 100x ovn-nbctl per port. Kube-OVN's anchor: 10k
 * ports took 15-17 minutes through ovn-nbctl (kubeovn/kube-ovn#1675).
 *
 * Each writer gets its own fresh NB (ovsdb-server NB+SB, no northd: only the
 * NB write path is measured, northd would compete for the CPU):
 * - kovn: `OvnBackend.apply(plan(empty, topology))`, `batch` plan operations
 *   per transaction (the plan is computed before the clock starts; the clock
 *   stops when apply resolves, i.e. when our cache shows the last write);
 * - raw: bench/ovsdb-raw.ts, the same rows in the same batches, no cache;
 * - nbctl: one `ovn-nbctl lsp-add ... -- lsp-set-addresses ...` process per
 *   port for the first `nbctlSample` ports, the switches created beforehand
 *   (untimed). This is nbctl's best case: each call downloads the whole
 *   NB, which here holds at most the sample.
 * With `cluster`, every writer gets a fresh 3-member raft NB instead (raw
 * writes to the leader's unix socket; kovn and nbctl find the leader
 * themselves).
 */
import { formatMAC, formatIPv4 } from '../model/addr/index.ts';
import { type Topology, buildTopology, emptyTopology, plan } from '../model/topology/index.ts';
import { startCluster, startControlPlane, runTool } from '../backends/ovn/control-plane/index.ts';
import { OvnBackend } from '../backends/ovn/index.ts';
import { type BenchPort, type BenchRow, rawWrite } from './ovsdb-raw.ts';

export type OvsdbBenchParams = {
  /** Ports to create (default 10,000). */
  readonly ports?: number;
  /** Switches they are spread over (default 100). */
  readonly switches?: number;
  /** Run against 3-member raft clusters instead of standalone servers. */
  readonly cluster?: boolean;
  /** Plan operations (rows) per transaction, for kovn and raw alike (default 500). */
  readonly batch?: number;
  /** Ports created through ovn-nbctl, one process each (default 1,000). */
  readonly nbctlSample?: number;
  /**
   * Timed runs of kovn and raw each, alternating, the median reported (default 5; more than 1 adds an untimed
   * full-size warm-up run of each).
   */
  readonly rounds?: number;
};

export type OvsdbBenchReport = {
  name: 'ovsdb';
  params: Record<string, unknown>;
  metrics: {
    kovn_ports_per_s: number;
    raw_ports_per_s: number;
    nbctl_ports_per_s: number;
    ratio_vs_raw: number;
    speedup_vs_nbctl: number;
  };
};

/** A fresh NB: its remotes for kovn/ovn-nbctl, the leader's unix socket for raw, and how to stop it. */
interface FreshNb {
  readonly remotes: string;
  leaderSocket(): Promise<string>;
  stop(): Promise<void>;
}

async function freshNb(cluster: boolean): Promise<FreshNb> {
  if (!cluster) {
    const cp = await startControlPlane({ northd: false });
    return { remotes: cp.nb.remote, leaderSocket: async () => cp.nb.socket, stop: () => cp.stop() };
  }
  const c = await startCluster({ members: 3 });
  return {
    remotes: c.members.map((m) => m.remote).join(','),
    leaderSocket: async () => (c.members[await c.leader()] as { socket: string }).socket,
    stop: () => c.stop(),
  };
}

/** The bench's ports: `port-M` on switch `ls-(M mod switches)`, a MAC and an IPv4 address each. */
export function benchPorts(ports: number, switches: number): BenchPort[] {
  return Array.from({ length: ports }, (_, m) => ({
    name: `port-${m}`,
    switchIndex: m % switches,
    addresses: `${formatMAC(0x0a5800000000 + m)} ${formatIPv4(((10 << 24) | (16 << 16)) + 2 + m)}`,
    externalIds: { pod: `bench/pod-${m}` },
  }));
}

function topologyOf(switches: number, ports: readonly BenchPort[]): Topology {
  return buildTopology({
    switch: Array.from({ length: switches }, (_, i) => ({
      name: `ls-${i}`,
      loadBalancers: [],
      otherConfig: {},
      externalIds: {},
    })),
    switchPort: ports.map((p) => ({
      name: p.name,
      switch: `ls-${p.switchIndex}`,
      type: '',
      addresses: [p.addresses],
      portSecurity: [],
      options: {},
      externalIds: p.externalIds,
    })),
  }).topology;
}

async function withNb<T>(cluster: boolean, run: (nb: FreshNb) => Promise<T>): Promise<T> {
  const nb = await freshNb(cluster);
  try {
    return await run(nb);
  } finally {
    await nb.stop();
  }
}

async function timeKovn(cluster: boolean, t: Topology, batch: number): Promise<Timed> {
  return withNb(cluster, async (nb) => {
    const be = await OvnBackend.connect({ remotes: nb.remotes, maxOpsPerTransaction: batch });
    try {
      const ops = plan(emptyTopology(), t);
      const t0 = performance.now();
      const r = await be.apply(ops);
      const seconds = (performance.now() - t0) / 1000;
      if (plan(await be.read(), t).length !== 0)
        throw new Error('bench ovsdb: kovn run left NB different from the topology');
      return { seconds, transactions: r.transactions };
    } finally {
      await be.close();
    }
  });
}

async function timeRaw(cluster: boolean, rows: readonly BenchRow[], batch: number): Promise<Timed> {
  return withNb(cluster, async (nb) => {
    const socket = await nb.leaderSocket();
    const t0 = performance.now();
    const transactions = await rawWrite({ socket, rows, batch });
    return { seconds: (performance.now() - t0) / 1000, transactions };
  });
}

async function timeNbctl(cluster: boolean, switches: number, sample: readonly BenchPort[]): Promise<number> {
  return withNb(cluster, async (nb) => {
    const db = `--db=${nb.remotes}`;
    const create = Array.from({ length: switches }, (_, i) => ['--', 'ls-add', `ls-${i}`]).flat();
    await runTool('ovn-nbctl', [db, ...create.slice(1)]);
    const t0 = performance.now();
    for (const p of sample) {
      await runTool('ovn-nbctl', [
        db,
        'lsp-add',
        `ls-${p.switchIndex}`,
        p.name,
        '--',
        'lsp-set-addresses',
        p.name,
        p.addresses,
      ]);
    }
    return (performance.now() - t0) / 1000;
  });
}

/** The rows in plan order (switches, then ports by name), as kovn's plan has them. */
function rowsOf(t: Topology, ports: readonly BenchPort[]): BenchRow[] {
  const byName = new Map(ports.map((p) => [p.name, p]));
  return plan(emptyTopology(), t).map((op) =>
    op.table === 'switch'
      ? { kind: 'switch', index: Number(op.key.slice(3)), row: { name: op.key } }
      : { kind: 'port', row: byName.get(op.key) as BenchPort },
  );
}

interface Timed {
  readonly seconds: number;
  readonly transactions: number;
}

function median(xs: readonly Timed[]): Timed {
  const sorted = [...xs].sort((a, b) => a.seconds - b.seconds);
  return sorted[Math.floor((sorted.length - 1) / 2)] as Timed;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * @example
 * const report = await runOvsdbBench({ ports: 10_000 });
 * console.log(report.metrics.ratio_vs_raw);
 */
export async function runOvsdbBench(params: OvsdbBenchParams = {}): Promise<OvsdbBenchReport> {
  const n = Math.max(1, params.ports ?? 10_000);
  const switches = Math.max(1, Math.min(params.switches ?? 100, n));
  const batch = Math.max(1, params.batch ?? 500);
  const cluster = params.cluster ?? false;
  const sampleN = Math.max(1, Math.min(params.nbctlSample ?? 1_000, n));
  const progress = (msg: string) => process.stderr.write(`bench ovsdb: ${msg}\n`);
  const rounds = Math.max(1, params.rounds ?? 5);
  const ports = benchPorts(n, switches);
  const t = topologyOf(switches, ports);
  const rows = rowsOf(t, ports);
  const where = cluster ? 'a fresh 3-member raft NB' : 'a fresh standalone NB';
  progress(
    `${n} ports on ${switches} switches, ${batch} rows per transaction, each writer on ${where} (no northd), ${rounds} round(s)`,
  );
  if (rounds > 1) {
    // Both writers warm up on the full workload (JIT, allocator, socket buffers), so the timed
    // rounds compare steady states; a smaller warm-up left kovn's JIT half-cold while raw, with
    // almost no code of its own, was already flat.
    progress(`warm-up (untimed): ${n} ports through kovn and raw`);
    await timeKovn(cluster, t, batch);
    await timeRaw(cluster, rows, batch);
  }
  const raws: Timed[] = [];
  const kovns: Timed[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first, so neither always runs on a warmer (or more loaded) machine.
    for (const which of r % 2 === 0 ? ['raw', 'kovn'] : ['kovn', 'raw']) {
      const res = which === 'raw' ? await timeRaw(cluster, rows, batch) : await timeKovn(cluster, t, batch);
      (which === 'raw' ? raws : kovns).push(res);
      progress(
        `  round ${r + 1} ${which}: ${round1(n / res.seconds)} ports/s (${res.transactions} transactions, ${round3(res.seconds)} s)`,
      );
    }
  }
  const raw = median(raws);
  const kovn = median(kovns);
  progress(`ovn-nbctl, one process per port, ${sampleN} ports`);
  const nbctlSeconds = await timeNbctl(cluster, switches, ports.slice(0, sampleN));
  progress(`  ${round1(sampleN / nbctlSeconds)} ports/s`);
  const kovnRate = n / kovn.seconds;
  const rawRate = n / raw.seconds;
  const nbctlRate = sampleN / nbctlSeconds;
  return {
    name: 'ovsdb',
    params: {
      ports: n,
      switches,
      batch,
      cluster,
      nbctl_sample: sampleN,
      rounds,
      warmup_ports: rounds > 1 ? n : 0,
      northd: false,
      kovn_transactions: kovn.transactions,
      raw_transactions: raw.transactions,
    },
    metrics: {
      kovn_ports_per_s: round1(kovnRate),
      raw_ports_per_s: round1(rawRate),
      nbctl_ports_per_s: round1(nbctlRate),
      ratio_vs_raw: round3(kovnRate / rawRate),
      speedup_vs_nbctl: round1(kovnRate / nbctlRate),
    },
  };
}
