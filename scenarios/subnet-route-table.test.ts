// scenarios/subnet-route-table.yaml proves Subnet routeTable: without it (the field removed, on the
// simulator), team-a/web no longer reaches the peered VPC, whose route is only in table rtb1.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from './load.ts';
import { runScenario, SimWorld } from './run.ts';

const file = join(import.meta.dirname, 'subnet-route-table.yaml');

async function run(s: ReturnType<typeof loadScenario>) {
  const world = new SimWorld();
  try {
    return await runScenario(s, { world });
  } finally {
    await world.close();
  }
}

describe('subnet-route-table.yaml', () => {
  it("the route in table rtb1 carries a1's traffic only while a1 names the table", async () => {
    const s = loadScenario(file);
    const withField = await run(s);
    const probe = (r: typeof withField) =>
      r.results.find((x) => x.step === 0 && x.from === 'team-a/web' && x.to === 'team-c/db' && x.protocol === 'TCP');
    expect(probe(withField)?.allowed).toBe(true);
    const without = {
      ...s,
      objects: s.objects.map((o) => {
        if (o.object.kind !== 'Subnet' || (o.object.metadata as { name?: string }).name !== 'a1') return o;
        const { routeTable: _gone, ...spec } = o.object.spec as Record<string, unknown>;
        return { ...o, object: { ...o.object, spec } };
      }),
    };
    const r = await run(without);
    expect(probe(r)?.allowed).toBe(false);
    expect(probe(r)?.reason).toContain('no route to host');
  });
});
