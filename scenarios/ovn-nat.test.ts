// scenarios/ovn-nat.yaml proves OVN-native NAT: each rule removed (on the simulator), the probes it
// carries are denied, so the scenario cannot pass by accident; with them, the traces show the
// translated addresses.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from './load.ts';
import { runScenario, SimWorld } from './run.ts';
import { traceScenario } from './trace.ts';

const file = join(import.meta.dirname, 'ovn-nat.yaml');
const nameOf = (o: Readonly<Record<string, unknown>>) => (o.metadata as { name?: string }).name;

async function run(edit: (s: ReturnType<typeof loadScenario>) => ReturnType<typeof loadScenario> = (s) => s) {
  const world = new SimWorld();
  try {
    return await runScenario(edit(loadScenario(file)), { world });
  } finally {
    await world.close();
  }
}
const without = (name: string) => (s: ReturnType<typeof loadScenario>) => ({
  ...s,
  objects: s.objects.filter((o) => nameOf(o.object) !== name),
});

type Run = Awaited<ReturnType<typeof run>>;
const verdict = (r: Run, from: string, to: string, protocol: string, port?: number) =>
  r.results.find((x) => x.from === from && x.to === to && x.protocol === protocol && x.port === port)?.allowed;

describe('ovn-nat.yaml', () => {
  it('every rule carries its probes: without it they are denied', async () => {
    const all = await run();
    expect(all.results.filter((x) => !x.ok)).toEqual([]);
    expect(verdict(all, 'host/outside', '172.18.0.20', 'TCP', 80)).toBe(true);
    expect(verdict(all, 'ns1/web', 'host/outside', 'TCP', 443)).toBe(true);
    expect(verdict(all, 'host/outside', '172.18.0.21', 'TCP', 80)).toBe(true);
    expect(verdict(all, 'ns2/client', 'host/outside', 'TCP', 443)).toBe(true);
    const noFip = await run(without('fip-web'));
    expect(verdict(noFip, 'host/outside', '172.18.0.20', 'TCP', 80)).toBe(false);
    expect(verdict(noFip, 'host/outside', '172.18.0.20', 'ICMP')).toBe(false);
    const noDnat = await run(without('dnat-app'));
    expect(verdict(noDnat, 'host/outside', '172.18.0.21', 'TCP', 80)).toBe(false);
    // Without enableExternal there is no gateway port: nothing goes in or out.
    const closed = await run((s) => ({
      ...s,
      objects: s.objects.map((o) =>
        o.object.kind === 'Vpc'
          ? { ...o, object: { ...o.object, spec: { ...(o.object.spec as object), enableExternal: false } } }
          : o,
      ),
    }));
    expect(closed.results.filter((x) => x.allowed)).toEqual([]);
  });

  it('the traces show the translations: the FIP to web and back, client to vpc2 lrp EIP; none without the rules', async () => {
    const s = loadScenario(file);
    const changed = (
      t: { stages: readonly { stage: string; changes?: readonly { field: string; to: string }[] }[] },
      stage: string,
    ) => t.stages.filter((x) => x.stage === stage).flatMap((x) => (x.changes ?? []).map((c) => `${c.field}=${c.to}`));
    const inbound = await traceScenario(s, {
      from: 'host/outside',
      to: '172.18.0.20',
      protocol: 'TCP',
      port: 80,
      allowed: true,
    });
    expect(inbound.verdict).toBe('delivered');
    expect(changed(inbound, 'lr_in_dnat')).toEqual(['ip4.dst=10.1.0.2']);
    const outbound = await traceScenario(s, {
      from: 'ns2/client',
      to: 'host/outside',
      protocol: 'TCP',
      port: 443,
      allowed: true,
    });
    expect(outbound.verdict).toBe('delivered');
    expect(changed(outbound, 'lr_out_snat')).toEqual(['ip4.src=172.18.0.11']);
    expect(outbound.reply?.verdict).toBe('delivered');
    // Without the SNAT rule (and without the FIP) the pods leave with their own addresses. The verdict
    // does not flip: the simulator's host answers a pod back through the router port it came from,
    // not through the host's gateway as docs/architecture.md says (the underlay's reply path).
    const noSnat = await traceScenario(without('snat-net2')(s), {
      from: 'ns2/client',
      to: 'host/outside',
      protocol: 'TCP',
      port: 443,
      allowed: true,
    });
    expect(changed(noSnat, 'lr_out_snat')).toEqual([]);
    const noFip = await traceScenario(without('fip-web')(s), {
      from: 'ns1/web',
      to: 'host/outside',
      protocol: 'TCP',
      port: 443,
      allowed: true,
    });
    expect(changed(noFip, 'lr_out_snat')).toEqual([]);
    const withFip = await traceScenario(s, {
      from: 'ns1/web',
      to: 'host/outside',
      protocol: 'TCP',
      port: 443,
      allowed: true,
    });
    expect(changed(withFip, 'lr_out_snat')).toEqual(['ip4.src=172.18.0.20']);
  });
});
