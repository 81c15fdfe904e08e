/**
 * `kovn bench ovsdb --cluster --fault kill-leader|freeze-leader|freeze-follower`:
 * N ports written through the OVN backend (one port group of 25 ports per
 * transaction) to a 3-member raft NB while a fault hits at a seeded moment:
 * the leader SIGKILLed, the leader SIGSTOPped for `freezeMs`, or a follower
 * SIGSTOPped (with a second session reading from that follower, as a
 * read-mostly client would). Reports:
 * - `resume_ms`: fault → the next commit of the writer;
 * - `election_ms`: fault → a member other than the faulty one says it leads
 *   (`cluster/status` of the other members, asked every 10 ms; each answer takes a few ms more, so
 *   this errs late); 0 when no election is due;
 * - `reader_stale_ms` (freeze-follower): fault → the reader's cache shows a
 *   port committed after the fault;
 * - `lost`: ports whose apply resolved but which are not in NB at the end;
 *   `duplicated`: port names present more than once.
 * Targets (reported, never asserted): freeze `resume_ms` < 5,000 with default
 * settings; kill-leader `resume_ms` within 200 ms of `election_ms`; 0 lost,
 * 0 duplicated.
 */
import { performance } from 'node:perf_hooks';
import { type OvsdbCluster, runTool, startCluster } from '../backends/ovn/control-plane/index.ts';
import { parseClusterStatus } from '../backends/ovn/control-plane/cluster.ts';
import { OvnBackend } from '../backends/ovn/nb/backend.ts';
import { OvsdbSession } from '../backends/ovn/ovsdb/session.ts';
import { formatMAC } from '../model/addr/index.ts';
import { seededRandomBytes } from '../model/ipam/index.ts';
import type { Plan } from '../model/topology/index.ts';

export type Fault = 'kill-leader' | 'freeze-leader' | 'freeze-follower';

export interface FaultBenchParams {
  readonly fault: Fault;
  readonly ports?: number;
  readonly seed?: number;
  readonly freezeMs?: number;
  readonly log?: (line: string) => void;
}

export interface FaultBenchReport {
  name: 'ovsdb-fault';
  params: { fault: Fault; ports: number; seed: number; freeze_ms: number; fault_after_ports: number };
  /** The writer session's connection events after the fault (why it closed, which members it tried). */
  events: string[];
  metrics: {
    resume_ms: number;
    election_ms: number;
    reader_stale_ms?: number;
    lost: number;
    duplicated: number;
    ports_per_s: number;
  };
}

const BATCH = 25;

/** A number in [0, 1) from the seed (the model's seeded byte source): the fault's moment is reproducible. */
function fraction(seed: number): number {
  const b = new Uint8Array(4);
  seededRandomBytes(seed)(b);
  return new DataView(b.buffer).getUint32(0) / 2 ** 32;
}

function batchPlan(from: number, to: number): Plan {
  const ops: Plan[number][] = [];
  for (let i = from; i < to; i++) {
    ops.push({
      op: 'create',
      table: 'switchPort',
      key: `p${i}`,
      row: {
        name: `p${i}`,
        switch: 'ls',
        type: '',
        addresses: [`${formatMAC(0x0a5800000000 + i)} 10.${16 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`],
        portSecurity: [],
        options: {},
        externalIds: {},
      },
    });
  }
  return ops;
}

/** Whether a member other than `not` says it leads (members asked at once). */
async function leaderOtherThan(c: OvsdbCluster, not: number): Promise<boolean> {
  const answers = await Promise.all(
    c.members
      .filter((m) => m.index !== not)
      .map((m) =>
        runTool('ovs-appctl', ['-t', m.ctl, 'cluster/status', c.dbName], { timeoutMs: 2_000 }).then(
          (r) => parseClusterStatus(r.stdout)?.role === 'leader',
          () => false,
        ),
      ),
  );
  return answers.some(Boolean);
}

/** One run's state: the cluster, the member the fault hits, and when it hit (0 before). */
interface FaultRun {
  readonly params: FaultBenchParams;
  readonly cluster: OvsdbCluster;
  readonly victim: number;
  readonly freezeMs: number;
  readonly log: (line: string) => void;
  /** performance.now() when the fault hit; 0 before. */
  faultTime: number;
  /** The pid stopped by a freeze and not yet continued. */
  frozen: number | undefined;
  electionMs: number;
  electionWatch: Promise<void> | undefined;
}

/** The writer: connects through the members in order, its connection events recorded relative to the fault. */
async function connectWriter(run: FaultRun, events: string[]): Promise<OvnBackend> {
  const backend = await OvnBackend.connect({ remotes: run.cluster.remotes });
  backend.session.onEvent((e) => {
    const at = run.faultTime === 0 ? '' : `+${Math.round(performance.now() - run.faultTime)}ms `;
    if (e.kind === 'closed') events.push(`${at}closed ${e.remote}: ${e.reason}`);
    else if (e.kind === 'synced') events.push(`${at}synced ${e.remote} (${e.after})`);
    else events.push(`${at}pass failed: ${e.attempts.map((a) => `${a.remote} ${a.outcome}`).join(', ')}`);
  });
  await backend.apply([
    {
      op: 'create',
      table: 'switch',
      key: 'ls',
      row: { name: 'ls', loadBalancers: [], otherConfig: {}, externalIds: {} },
    },
  ]);
  return backend;
}

/** A read-mostly session on the follower first (freeze-follower): `leaderOnly` off. */
async function openReader(run: FaultRun, follower: number): Promise<OvsdbSession> {
  const { cluster } = run;
  const order = [follower, ...cluster.members.map((m) => m.index).filter((i) => i !== follower)];
  const reader = await OvsdbSession.open({
    remotes: order.map((i) => cluster.members[i]?.tcpRemote as string).join(','),
    db: cluster.dbName,
    tables: { Logical_Switch_Port: ['name'] },
    leaderOnly: false,
  });
  run.log(`reader synced to ${reader.currentRemote}`);
  return reader;
}

/** Kills or freezes the victim now, and (when an election is due) starts timing it. */
async function injectFault(run: FaultRun, atPort: number): Promise<void> {
  const { cluster, victim, params } = run;
  const pid = cluster.members[victim]!.pid;
  run.faultTime = performance.now();
  if (params.fault === 'kill-leader') await cluster.kill(victim);
  else {
    process.kill(pid, 'SIGSTOP');
    run.frozen = pid;
    setTimeout(() => {
      if (run.frozen !== undefined) process.kill(run.frozen, 'SIGCONT');
      run.frozen = undefined;
    }, run.freezeMs).unref();
  }
  run.log(`${params.fault}: member ${victim} at port ${atPort}`);
  if (params.fault === 'freeze-follower') return;
  run.electionWatch = (async () => {
    while (!(await leaderOtherThan(cluster, victim))) await new Promise((r) => setTimeout(r, 10));
    run.electionMs = performance.now() - run.faultTime;
  })();
}

/** Writes every port, BATCH per apply, the fault injected before the batch starting at `faultAt`. */
async function writePorts(run: FaultRun, backend: OvnBackend, ports: number, faultAt: number) {
  const acked: string[] = [];
  const commits: number[] = [];
  const started = performance.now();
  for (let i = 0; i < ports; i += BATCH) {
    if (i === faultAt) await injectFault(run, i);
    const end = Math.min(ports, i + BATCH);
    await backend.apply(batchPlan(i, end));
    commits.push(performance.now());
    for (let k = i; k < end; k++) acked.push(`p${k}`);
  }
  return { acked, commits, elapsed: performance.now() - started };
}

/** Fault → the reader's cache shows the first port written after it. */
async function readerStaleMs(run: FaultRun, reader: OvsdbSession, faultAt: number): Promise<number> {
  const want = `p${faultAt}`;
  while (reader.cache.lookup('Logical_Switch_Port', 'name', want).length === 0)
    await new Promise((r) => setTimeout(r, 20));
  return performance.now() - run.faultTime;
}

/** Acknowledged ports missing from NB, and names present more than once (ovn-nbctl's view). */
async function auditNb(cluster: OvsdbCluster, acked: readonly string[]): Promise<{ lost: number; duplicated: number }> {
  const nb = await runTool('ovn-nbctl', [
    `--db=${cluster.remotes}`,
    '--bare',
    '--columns=name',
    'list',
    'Logical_Switch_Port',
  ]);
  const listed = nb.stdout
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
  const present = new Set(listed);
  return { lost: acked.filter((n) => !present.has(n)).length, duplicated: listed.length - present.size };
}

/**
 * @example
 * const r = await runOvsdbFaultBench({ fault: 'kill-leader', ports: 2000 });
 * console.log(r.metrics.resume_ms, r.metrics.lost);
 */
export async function runOvsdbFaultBench(params: FaultBenchParams): Promise<FaultBenchReport> {
  const ports = params.ports ?? 2000;
  const seed = params.seed ?? 1;
  const freezeMs = params.freezeMs ?? 10_000;
  const faultAt = BATCH * Math.floor(((0.25 + fraction(seed) * 0.5) * ports) / BATCH);
  const cluster = await startCluster();
  let backend: OvnBackend | undefined;
  let reader: OvsdbSession | undefined;
  let run: FaultRun | undefined;
  try {
    const leader = await cluster.leader();
    const follower = (leader + 1) % cluster.members.length;
    run = {
      params,
      cluster,
      victim: params.fault === 'freeze-follower' ? follower : leader,
      freezeMs,
      log: params.log ?? ((l: string) => process.stderr.write(`${l}\n`)),
      faultTime: 0,
      frozen: undefined,
      electionMs: 0,
      electionWatch: undefined,
    };
    // The writer connects through the members in order; the victim first where it leads, so the fault hits it.
    const events: string[] = [];
    backend = await connectWriter(run, events);
    if (params.fault === 'freeze-follower') reader = await openReader(run, follower);
    const { acked, commits, elapsed } = await writePorts(run, backend, ports, faultAt);
    await run.electionWatch;
    const resume = commits.find((t) => t > (run as FaultRun).faultTime);
    const readerStale = reader === undefined ? undefined : await readerStaleMs(run, reader, faultAt);
    if (run.frozen !== undefined) process.kill(run.frozen, 'SIGCONT');
    run.frozen = undefined;
    const { lost, duplicated } = await auditNb(cluster, acked);
    return {
      name: 'ovsdb-fault',
      params: {
        fault: params.fault,
        ports,
        seed,
        freeze_ms: params.fault === 'kill-leader' ? 0 : freezeMs,
        fault_after_ports: faultAt,
      },
      events,
      metrics: {
        resume_ms: Math.round(resume === undefined ? -1 : resume - run.faultTime),
        election_ms: Math.round(run.electionMs),
        ...(readerStale !== undefined ? { reader_stale_ms: Math.round(readerStale) } : {}),
        lost,
        duplicated,
        ports_per_s: Math.round((ports / elapsed) * 1000),
      },
    };
  } finally {
    if (run?.frozen !== undefined) process.kill(run.frozen, 'SIGCONT');
    reader?.close();
    await backend?.close();
    await cluster.stop();
  }
}
