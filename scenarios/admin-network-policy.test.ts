// scenarios/admin-network-policy.yaml cannot pass by accident: each tier's object removed, a probe it
// decides flips on the simulator (the same probe passes with it, shipped.test.ts).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LoadedScenario, loadScenario } from './load.ts';
import { runScenario, SimWorld } from './run.ts';

const FILE = join(import.meta.dirname, 'admin-network-policy.yaml');

function without(s: LoadedScenario, kind: string, name: string): LoadedScenario {
  const objects = s.objects.filter(
    (o) => !(o.kind === kind && (o.object.metadata as { name?: string } | undefined)?.name === name),
  );
  expect(objects.length).toBe(s.objects.length - 1);
  return { ...s, objects };
}

async function verdict(s: LoadedScenario, from: string, to: string, port: number): Promise<boolean | undefined> {
  const world = new SimWorld();
  const r = await runScenario(s, { world }).finally(() => world.close());
  return r.results.find((x) => x.from === from && x.to === to && x.port === port)?.allowed;
}

describe('admin-network-policy.yaml: a probe flips without each object', () => {
  const s = loadScenario(FILE);
  it.each([
    ['AdminNetworkPolicy', 'pass-ops', 'ops/monitor', 'prod/api', 9090, true],
    ['AdminNetworkPolicy', 'prod-guard', 'dev/tester', 'prod/db', 5432, false],
    ['AdminNetworkPolicy', 'prod-guard', 'dev/tester', 'prod/api', 8080, true],
    ['AdminNetworkPolicy', 'prod-guard', 'prod/api', '203.0.113.10', 443, false],
    ['BaselineAdminNetworkPolicy', 'default', 'ops/monitor', 'prod/db', 80, false],
  ] as const)('without %s %s: %s → %s TCP/%i is no longer %s', async (kind, name, from, to, port, want) => {
    expect(await verdict(s, from, to, port)).toBe(want);
    expect(await verdict(without(s, kind, name), from, to, port)).toBe(!want);
  });
});
