/**
 * Batching: a plan of n operations takes ceil(n / maxOpsPerTransaction)
 * transactions, and a 2,000-port topology arrives whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Topology, buildTopology, emptyTopology, plan } from '../../../model/topology/index.ts';
import { formatMAC } from '../../../model/addr/index.ts';
import { type ControlPlane, requireOvn, startControlPlane } from '../control-plane/index.ts';
import { OvnBackend } from './backend.ts';
import { OvnBackendError } from './errors.ts';
import { nbColumn, topologyDiff } from './testing.ts';

/** `ports` ports spread round-robin over `switches` switches. */
function portsTopology(opts: { switches: number; ports: number }): Topology {
  const switch_ = Array.from({ length: opts.switches }, (_, i) => ({
    name: `ls-${i}`,
    loadBalancers: [],
    otherConfig: {},
    externalIds: {},
  }));
  const switchPort = Array.from({ length: opts.ports }, (_, m) => ({
    name: `port-${m}`,
    switch: `ls-${m % opts.switches}`,
    type: '' as const,
    addresses: [`${formatMAC(0x0a5800000000 + m)} 10.${16 + (m >> 16)}.${(m >> 8) & 255}.${m & 255}`],
    portSecurity: [],
    options: {},
    externalIds: { pod: `pod-${m}` },
  }));
  return buildTopology({ switch: switch_, switchPort }).topology;
}

describe.skipIf(!requireOvn('ovn backend batching'))('OvnBackend batching', () => {
  let cp: ControlPlane;

  beforeAll(async () => {
    cp = await startControlPlane({ northd: false });
  });
  afterAll(async () => {
    await cp?.stop();
  });

  it.each([150, 500])('2,000 ports on 20 switches, at most %i plan operations per transaction', async (max) => {
    const be = await OvnBackend.connect({ remotes: cp.nb.remote, maxOpsPerTransaction: max });
    try {
      const t = portsTopology({ switches: 20, ports: 2000 });
      const ops = plan(await be.read(), t);
      expect(ops).toHaveLength(2020);
      const result = await be.apply(ops);
      expect(result.operations).toBe(2020);
      expect(result.transactions).toBe(Math.ceil(2020 / max));
      expect(topologyDiff(await be.read(), t)).toEqual([]);
      expect(await nbColumn(cp.nb.remote, 'Logical_Switch_Port', 'name')).toHaveLength(2000);
      const portsPerSwitch = (await nbColumn(cp.nb.remote, 'Logical_Switch', 'ports')).map(
        (s) => s.split(/\s+/).length,
      );
      expect(portsPerSwitch).toEqual(Array(20).fill(100));
      const del = await be.apply(plan(await be.read(), emptyTopology()));
      expect(del.transactions).toBe(Math.ceil(2020 / max));
      expect(await nbColumn(cp.nb.remote, 'Logical_Switch_Port', 'name')).toEqual([]);
    } finally {
      await be.close();
    }
  });

  it('a deadline that passes mid-apply: committed transactions stay, the error counts them, the rest is not sent', async () => {
    const be = await OvnBackend.connect({ remotes: cp.nb.remote, maxOpsPerTransaction: 100, pipeline: false });
    try {
      const t = portsTopology({ switches: 2, ports: 1000 });
      const gone = new AbortController();
      gone.abort();
      const early = await be.apply(plan(await be.read(), t), { signal: gone.signal }).catch((e: unknown) => e);
      expect(early).toMatchObject({ code: 'deadline', committedTransactions: 0 });
      expect((await be.read()).switchPort.size).toBe(0);
      // Abort as soon as the first batch's ports show up in the cache.
      const deadline = new AbortController();
      const off = be.session.cache.onChange(() => {
        if (be.readCached().switchPort.size > 0) deadline.abort();
      });
      const err = await be.apply(plan(await be.read(), t), { signal: deadline.signal }).catch((e: unknown) => e);
      off();
      expect(err).toBeInstanceOf(OvnBackendError);
      expect(err).toMatchObject({ code: 'deadline' });
      const committed = (err as OvnBackendError).committedTransactions ?? -1;
      expect(committed).toBeGreaterThanOrEqual(0);
      expect(committed).toBeLessThan(11);
      // NB holds whole transactions only: transaction k carries plan operations [100(k-1), 100k), the two
      // switches first. The one in flight when the deadline passed is there or not, as maybeCommitted allows.
      const back = await be.read();
      const portsAfter = (k: number) => Math.max(0, Math.min(1000, 100 * k - 2));
      const maybe = (err as OvnBackendError).maybeCommitted;
      const possible = maybe ? [portsAfter(committed), portsAfter(committed + 1)] : [portsAfter(committed)];
      expect(possible).toContain(back.switchPort.size);
      expect(back.switchPort.size).toBeLessThan(1000);
      // What is left is a plain plan away.
      await be.apply(plan(back, t));
      expect(topologyDiff(await be.read(), t)).toEqual([]);
      await be.apply(plan(await be.read(), emptyTopology()));
    } finally {
      await be.close();
    }
  });
});
