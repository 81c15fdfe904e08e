/**
 * Membership changes travel as OVSDB mutates: one port joining a port group
 * of 5,000, one address leaving an address set, one VIP on a shared load
 * balancer send that member, not the column. Measured in bytes the client
 * writes to the server (through a counting relay), which is a size, not a
 * timing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { type Server, type Socket, createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMAC } from '../../../model/addr/index.ts';
import { type Plan, type Topology, buildTopology, plan } from '../../../model/topology/index.ts';
import { type ControlPlane, requireOvn, startControlPlane } from '../control-plane/index.ts';
import { OvnBackend } from './backend.ts';
import { nbctl } from './testing.ts';

const PORTS = 5000;

function bigGroupTopology(): Topology {
  const switchPort = Array.from({ length: PORTS + 1 }, (_, m) => ({
    name: `port-${m}`,
    switch: 'ls0',
    type: '' as const,
    addresses: [`${formatMAC(0x0a5800000000 + m)} 10.16.${m >> 8}.${m & 255}`],
    portSecurity: [],
    options: {},
    externalIds: {},
  }));
  return buildTopology({
    switch: [{ name: 'ls0', loadBalancers: [], otherConfig: {}, externalIds: {} }],
    switchPort,
    portGroup: [{ name: 'pg', ports: switchPort.slice(0, PORTS).map((p) => p.name), externalIds: {} }],
    addressSet: [
      {
        name: 'as',
        addresses: switchPort.slice(0, PORTS).map((_, m) => `10.16.${m >> 8}.${m & 255}`),
        externalIds: {},
      },
    ],
    loadBalancer: [
      {
        name: 'lb',
        vips: Object.fromEntries(
          Array.from({ length: 500 }, (_, i) => [`10.96.${i >> 8}.${i & 255}:80`, '10.16.0.1:8080']),
        ),
        protocol: 'tcp',
        selectionFields: [],
        options: {},
        externalIds: {},
      },
    ],
  }).topology;
}

/** A unix-socket relay to `target` that counts the bytes clients send. */
async function countingRelay(
  dir: string,
  target: string,
): Promise<{ path: string; sent: () => number; close(): Promise<void> }> {
  let sent = 0;
  const sockets = new Set<Socket>();
  const path = join(dir, 'relay.sock');
  const server: Server = createServer((client) => {
    const upstream = createConnection(target);
    sockets.add(client).add(upstream);
    client.on('data', (d) => {
      sent += d.length;
      upstream.write(d);
    });
    upstream.on('data', (d) => client.write(d));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return {
    path,
    sent: () => sent,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(!requireOvn('ovn backend mutates'))('OvnBackend membership mutates', () => {
  let cp: ControlPlane;
  let dir: string;
  let relay: Awaited<ReturnType<typeof countingRelay>>;
  let be: OvnBackend;

  beforeAll(async () => {
    cp = await startControlPlane({ northd: false });
    dir = await mkdtemp(join(tmpdir(), 'kovn-mutate-'));
    const nbPath = cp.nb.remote.replace(/^unix:/, '');
    relay = await countingRelay(dir, nbPath);
    be = await OvnBackend.connect({ remotes: `unix:${relay.path}` });
    await be.apply(plan(await be.read(), bigGroupTopology()));
  });
  afterAll(async () => {
    await be?.close();
    await relay?.close();
    await cp?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function bytesFor(ops: Plan): Promise<number> {
    const before = relay.sent();
    await be.apply(ops);
    return relay.sent() - before;
  }

  it('one member in or out of a 5,000-member column sends about one member', async () => {
    const joined = await bytesFor([
      { op: 'mutate', table: 'portGroup', key: 'pg', insert: { ports: [`port-${PORTS}`] } },
    ]);
    const left = await bytesFor([
      { op: 'mutate', table: 'addressSet', key: 'as', delete: { addresses: ['10.16.0.7'] } },
    ]);
    const vip = await bytesFor([
      {
        op: 'mutate',
        table: 'loadBalancer',
        key: 'lb',
        delete: { vips: ['10.96.0.3:80'] },
        insert: { vips: { '10.96.0.3:80': '10.16.0.2:8080' } },
      },
    ]);
    // A whole-column update would carry 5,000 uuids (over 200 KB) or 5,000 addresses; one mutate is a few hundred bytes.
    for (const bytes of [joined, left, vip]) expect(bytes).toBeLessThan(2000);
    const t = await be.read();
    expect(t.portGroup.get('pg')?.ports).toHaveLength(PORTS + 1);
    expect(t.addressSet.get('as')?.addresses).toHaveLength(PORTS - 1);
    expect(t.loadBalancer.get('lb')?.vips['10.96.0.3:80']).toBe('10.16.0.2:8080');
    expect(await nbctl(cp.nb.remote, '--bare', '--columns=addresses', 'find', 'Address_Set', 'name=as')).not.toMatch(
      /\b10\.16\.0\.7\b/,
    );
  });

  it('the same change as an update of the column sends the whole column (the cost the mutate avoids)', async () => {
    const t = await be.read();
    const as = t.addressSet.get('as')!;
    const ops: Plan = [{ op: 'update', table: 'addressSet', key: 'as', changes: { addresses: as.addresses.slice(1) } }];
    // 4,999 addresses of 10 to 12 characters each, quoted: the relay sees the column go by.
    expect(await bytesFor(ops)).toBeGreaterThan(50_000);
    expect((await be.read()).addressSet.get('as')?.addresses).toHaveLength(PORTS - 2);
  });
});
