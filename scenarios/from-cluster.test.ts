import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioFromCluster } from './from-cluster.ts';
import { loadScenario } from './load.ts';
import { runScenario, SimWorld } from './run.ts';
import { startSimLive } from './ko/testing/live.ts';

const QUICKSTART = 'scenarios/quickstart.yaml';

describe("a scenario's probes over a running cluster's objects", () => {
  let live: Awaited<ReturnType<typeof startSimLive>>;
  beforeAll(async () => {
    live = await startSimLive(QUICKSTART);
  });
  afterAll(() => live?.stop());

  it("answers the quickstart's probes as the file does, the cluster's pods and addresses standing for its objects", async () => {
    const file = loadScenario(QUICKSTART);
    const s = await scenarioFromCluster(live.cluster, 'test-cluster', file);
    expect(s.objects.filter((o) => o.kind === 'Pod').length).toBe(4);
    const r = await runScenario(s, { world: new SimWorld() });
    expect(r.results.filter((x) => !x.ok)).toEqual([]);
    expect(r.results.length).toBe(file.expect.length + file.steps.reduce((n, st) => n + st.expect.length, 0));
    // The run's pods are the cluster's, on the addresses the cluster's controller gave them.
    const pods = (await live.cluster.list('Pod')).items;
    const web = pods.find((p) => p.metadata.name === 'web-9jwrnlsw9q-hl97j');
    expect(web?.metadata.annotations?.['ovn.kubernetes.io/ip_address']).toMatch(/^10\.16\.0\.\d+$/);
  });

  it('a deny-all policy applied to the cluster turns the allowed probes into denied ones', async () => {
    await live.cluster.create({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { namespace: 'shop', name: 'deny-all' },
      spec: { podSelector: {}, policyTypes: ['Ingress'] },
    } as never);
    const file = loadScenario(QUICKSTART);
    const s = await scenarioFromCluster(live.cluster, 'test-cluster', { ...file, steps: [] });
    const r = await runScenario(s, { world: new SimWorld() });
    // Into shop nothing is allowed now (debug -> svc/shop/web was); elsewhere nothing changed.
    const intoShop = r.results.filter((x) => x.to === 'svc/shop/web');
    expect(intoShop.map((x) => [x.port, x.expected, x.allowed])).toEqual([
      [80, true, false],
      [81, false, false],
    ]);
    expect(r.results.filter((x) => !x.ok).map((x) => x.to)).toEqual(['svc/shop/web']);
  });
});
