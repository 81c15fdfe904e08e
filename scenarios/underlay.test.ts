/**
 * scenarios/underlay.yaml and u2o-interconnection.yaml cannot pass by
 * accident: without the Subnet's `vlan` (no localnet port) the database
 * server no longer reaches the underlay pods, and without
 * `u2oInterconnection` the underlay and overlay pods no longer reach each
 * other (on the simulator).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LoadedObject, type LoadedScenario, loadScenario } from './load.ts';
import { runScenario, SimWorld } from './run.ts';

const FILE = join(import.meta.dirname, 'underlay.yaml');
const U2O = join(import.meta.dirname, 'u2o-interconnection.yaml');
const LOGICAL = join(import.meta.dirname, 'logical-gateway.yaml');

/** The scenario with every Subnet's spec changed by `f`. */
function withSubnets(s: LoadedScenario, f: (spec: Record<string, unknown>) => Record<string, unknown>): LoadedScenario {
  const map = (o: LoadedObject): LoadedObject =>
    o.kind !== 'Subnet' ? o : { ...o, object: { ...o.object, spec: f({ ...(o.object.spec as object) }) } };
  return { ...s, objects: s.objects.map(map), steps: s.steps.map((st) => ({ ...st, apply: st.apply.map(map) })) };
}

async function verdicts(s: LoadedScenario): Promise<Map<string, boolean>> {
  const world = new SimWorld();
  const r = await runScenario(s, { world }).finally(() => world.close());
  return new Map(r.results.map((x) => [`${x.step} ${x.from} ${x.to} ${x.protocol}/${x.port ?? ''}`, x.allowed]));
}

describe('the underlay scenarios flip without their features', () => {
  it('without spec.vlan (no localnet port): host/db-server no longer reaches underlay/web', async () => {
    const s = loadScenario(FILE);
    const key = '0 host/db-server underlay/web TCP/80';
    expect((await verdicts(s)).get(key)).toBe(true);
    const without = withSubnets(s, ({ vlan: _v, ...spec }) => spec);
    expect((await verdicts(without)).get(key)).toBe(false);
  });

  it('u2o-interconnection.yaml without u2oInterconnection: underlay/web and default/client no longer reach each other', async () => {
    const s = loadScenario(U2O);
    const keys = ['0 underlay/web default/client TCP/80', '0 default/client underlay/web TCP/80'];
    const on = await verdicts(s);
    expect(keys.map((k) => on.get(k))).toEqual([true, true]);
    const off = await verdicts(withSubnets(s, ({ u2oInterconnection: _u, ...spec }) => spec));
    expect(keys.map((k) => off.get(k))).toEqual([false, false]);
  });

  it('logical-gateway.yaml without logicalGateway: underlay/web no longer reaches default/client, nor the pod the host', async () => {
    const s = loadScenario(LOGICAL);
    const keys = ['0 underlay/web default/client TCP/80', '0 default/client host/db-server TCP/5432'];
    const before = await verdicts(s);
    expect(keys.map((k) => before.get(k))).toEqual([true, true]);
    const after = await verdicts(withSubnets(s, ({ logicalGateway: _l, ...spec }) => spec));
    expect(keys.map((k) => after.get(k))).toEqual([false, false]);
  });
});
