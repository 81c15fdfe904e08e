/**
 * `kovn bench netlink`: the node agent's rtnetlink with real namespaces
 * (root): the time of one addPodLink (veth with the peer in the pod's
 * namespace, the in-namespace helper's start and its steps, a dual-stack
 * pod with three routes), one inspectPodLink (a helper start and three
 * dumps: about the helper's start-up), one deleteLink. Sequential, one pod at
 * a time, as a CNI ADD is. Measures and reports; never fails on a figure.
 */
import { RtNetlink, spawnHelper } from '../node/netlink/index.ts';
import { NetnsFixture } from '../node/netlink/testing.ts';

export type NetlinkBenchParams = {
  /** Pods added, inspected and deleted (default 30). */
  readonly pods?: number;
  /** Ask for the pod end's tx checksum offload off, as the daemon does on a netdev datapath (default false). */
  readonly txChecksumOff?: boolean;
  /** Milliseconds, monotonic; default performance.now. */
  readonly clock?: () => number;
};

export type NetlinkBenchReport = {
  name: 'netlink';
  params: { pods: number; txChecksumOff: boolean };
  metrics: {
    add_p50_ms: number;
    add_p99_ms: number;
    /** The part of an add spent in the in-namespace helper (its process start included). */
    add_helper_p50_ms: number;
    inspect_p50_ms: number;
    del_p50_ms: number;
  };
};

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Times `fn` on the clock, in ms. */
async function timed(clock: () => number, fn: () => Promise<unknown>): Promise<number> {
  const t0 = clock();
  await fn();
  return clock() - t0;
}

/**
 * @example
 * const r = await runNetlinkBench({ pods: 30 }); // r.metrics.add_p50_ms
 */
export async function runNetlinkBench(params: NetlinkBenchParams = {}): Promise<NetlinkBenchReport> {
  const pods = Math.max(1, params.pods ?? 30);
  const clock = params.clock ?? (() => performance.now());
  const txChecksumOff = params.txChecksumOff ?? false;
  const fx = await NetnsFixture.create();
  const helper: number[] = [];
  const spawned = spawnHelper();
  const nl = new RtNetlink({
    runHelper: async (req) => {
      const t0 = clock();
      const reply = await spawned(req);
      if (req.job.op === 'configure') helper.push(clock() - t0);
      return reply;
    },
  });
  const add: number[] = [];
  const inspect: number[] = [];
  const del: number[] = [];
  try {
    for (let i = 0; i < pods; i++) {
      const ns = await fx.netns();
      const host = fx.linkName();
      const x = (i % 250) + 2;
      const link = {
        hostIfName: host,
        netns: ns.path,
        ifName: 'eth0',
        mac: `0a:58:0a:62:00:${x.toString(16).padStart(2, '0')}`,
        mtu: 1400,
        addresses: [`10.98.0.${x}/24`, `fd00:98::${x.toString(16)}/64`],
        routes: [{ dst: 'default', gw: '10.98.0.1' }, { dst: 'default', gw: 'fd00:98::1' }, { dst: '10.96.0.0/12' }],
        txChecksumOff,
      };
      add.push(await timed(clock, () => nl.addPodLink(link)));
      inspect.push(await timed(clock, () => nl.inspectPodLink(ns.path, 'eth0')));
      del.push(await timed(clock, () => nl.deleteLink(host)));
      await fx.cleanup();
    }
  } finally {
    nl.close();
    await fx.cleanup();
  }
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  return {
    name: 'netlink',
    params: { pods, txChecksumOff },
    metrics: {
      add_p50_ms: round(percentile(sorted(add), 50)),
      add_p99_ms: round(percentile(sorted(add), 99)),
      add_helper_p50_ms: round(percentile(sorted(helper), 50)),
      inspect_p50_ms: round(percentile(sorted(inspect), 50)),
      del_p50_ms: round(percentile(sorted(del), 50)),
    },
  };
}
