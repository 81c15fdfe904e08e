// scenarios/ovn-nat.yaml proves OVN-native NAT: each rule removed (on the simulator), the probes it
// carries are denied, so the scenario cannot pass by accident; with them, the trace shows the
// translated addresses.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from './load.ts';
import { runScenario, SimWorld } from './run.ts';
import { traceScenario } from './trace.ts';

const file = join(import.meta.dirname, 'ovn-nat.yaml');
const nameOf = (o: Readonly<Record<string, unknown>>) => (o.metadata as { name?: string }).name;

async function run(drop?: string) {
  const s = loadScenario(file);
  const world = new SimWorld();
  try {
    return await runScenario(
      drop === undefined ? s : { ...s, objects: s.objects.filter((o) => nameOf(o.object) !== drop) },
      { world },
    );
  } finally {
    await world.close();
  }
}

const verdict = (r: Awaited<ReturnType<typeof run>>, to: string, protocol: string, port?: number) =>
  r.results.find((x) => x.to === to && x.protocol === protocol && x.port === port)?.allowed;

describe('ovn-nat.yaml', () => {
  it('every rule carries its probes: without it they are denied', async () => {
    const all = await run();
    expect(verdict(all, '172.18.0.20', 'TCP', 80)).toBe(true);
    expect(verdict(all, '172.18.0.20', 'ICMP')).toBe(true);
    expect(verdict(all, '172.18.0.21', 'TCP', 80)).toBe(true);
    const noFip = await run('fip-web');
    expect(verdict(noFip, '172.18.0.20', 'TCP', 80)).toBe(false);
    expect(verdict(noFip, '172.18.0.20', 'ICMP')).toBe(false);
    const noDnat = await run('dnat-app');
    expect(verdict(noDnat, '172.18.0.21', 'TCP', 80)).toBe(false);
    // Without the SNAT the request arrives from 10.2.0.2, which vpc1 routes to the outside.
    const noSnat = await run('snat-net2');
    expect(verdict(noSnat, '172.18.0.20', 'TCP', 80)).toBe(false);
    // Without enableExternal there is no gateway port: nothing reaches the EIPs.
    const s = loadScenario(file);
    const closed = {
      ...s,
      objects: s.objects.map((o) =>
        o.object.kind === 'Vpc'
          ? { ...o, object: { ...o.object, spec: { ...(o.object.spec as object), enableExternal: false } } }
          : o,
      ),
    };
    const world = new SimWorld();
    const r = await runScenario(closed, { world }).finally(() => world.close());
    expect(r.results.filter((x) => x.allowed)).toEqual([]);
  });

  it("the trace shows the client's source translated to vpc2's lrp EIP and the FIP to web's address", async () => {
    const t = await traceScenario(loadScenario(file), {
      from: 'ns2/client',
      to: '172.18.0.20',
      protocol: 'TCP',
      port: 80,
      allowed: true,
    });
    expect(t.verdict).toBe('delivered');
    const changed = (stage: string) =>
      t.stages.filter((x) => x.stage === stage).flatMap((x) => (x.changes ?? []).map((c) => `${c.field}=${c.to}`));
    expect(changed('lr_out_snat')).toEqual(['ip4.src=172.18.0.11']);
    expect(changed('lr_in_dnat')).toEqual(['ip4.dst=10.1.0.2']);
    expect(t.reply?.verdict).toBe('delivered');
  });
});
