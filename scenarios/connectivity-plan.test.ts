import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/cluster/types.ts';
import {
  ConnectivityError,
  DEFAULT_MAX_PAIRS,
  pairsOf,
  parsePodFilter,
  planConnectivity,
} from './connectivity-plan.ts';

const pod = (ns: string, name: string, labels: Record<string, string>, ports: number[], extra: object = {}) =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels },
    spec: { containers: [{ name: 'c', image: 'x', ports: ports.map((containerPort) => ({ containerPort })) }] },
    ...extra,
  }) as KubeObject;

/** `namespaces` × `per` pods, one declared port each: the 20k-pod cluster at 200 × 100. */
const cluster = (namespaces: number, per: number) =>
  Array.from({ length: namespaces * per }, (_, i) =>
    pod(`ns${Math.floor(i / per)}`, `pod${i % per}`, { app: `app${i % 10}` }, [8080]),
  );

describe('planConnectivity', () => {
  const objects = [
    pod('prod', 'web', { app: 'web' }, [80, 443]),
    pod('prod', 'db', { app: 'db' }, [5432]),
    pod('dev', 'web', { app: 'web' }, [80]),
    pod('dev', 'client', { app: 'client' }, []),
    pod('dev', 'host', {}, [22], { spec: { hostNetwork: true, containers: [] } }),
  ];

  it('counts every ordered pair on each destination port, and yields exactly those, source by source', () => {
    const plan = planConnectivity(objects, {});
    expect(plan.pods).toEqual(['prod/web', 'prod/db', 'dev/web', 'dev/client']);
    // Destination ports: 2 + 1 + 1 + 0 = 4; each of 4 sources probes all but its own.
    expect(plan.total).toBe(4 * 4 - (2 + 1 + 1));
    const pairs = [...pairsOf(plan)];
    expect(pairs).toHaveLength(plan.total);
    expect(pairs.slice(0, 3)).toEqual([
      { from: 'prod/web', to: 'prod/db', protocol: 'TCP', port: 5432, allowed: true },
      { from: 'prod/web', to: 'dev/web', protocol: 'TCP', port: 80, allowed: true },
      { from: 'prod/db', to: 'prod/web', protocol: 'TCP', port: 80, allowed: true },
    ]);
    expect(plan.notes).toEqual([
      "dev/host uses the host network: left out (its node's network, not the overlay)",
      'dev/client declares no container port: nothing is probed towards it (give --ports)',
    ]);
  });

  it('narrows to --from and --to: namespaces, NAMESPACE/POD, labels', () => {
    const plan = planConnectivity(objects, {
      from: parsePodFilter('--from', 'dev'),
      to: parsePodFilter('--to', 'prod,dev/web,app=web'),
    });
    expect(plan.sources).toEqual(['dev/web', 'dev/client']);
    expect(plan.destinations).toEqual(['prod/web', 'dev/web']);
    expect(plan.pods).toEqual(['prod/web', 'dev/web', 'dev/client']);
    expect([...pairsOf(plan)].map((p) => `${p.from}>${p.to}/${p.port}`)).toEqual([
      'dev/web>prod/web/80',
      'dev/web>prod/web/443',
      'dev/client>prod/web/80',
      'dev/client>prod/web/443',
      'dev/client>dev/web/80',
    ]);
    expect(plan.total).toBe(5);
    const notDb = planConnectivity(objects, { to: parsePodFilter('--to', 'app!=db') });
    expect(notDb.destinations).toEqual(['prod/web', 'dev/web', 'dev/client']);
  });

  it('reads container ports as the controller does: no probe on a protocol or port Kubernetes would refuse', () => {
    const odd = pod('dev', 'odd', {}, []);
    const ports = [
      { containerPort: 80, protocol: 'FOO' },
      { containerPort: 0 },
      { containerPort: 53, protocol: 'UDP' },
    ];
    const plan = planConnectivity(
      [pod('dev', 'client', {}, []), { ...odd, spec: { containers: [{ name: 'c', ports }] } }],
      {},
    );
    // decodePod reports protocol FOO (and reads it as TCP, its default) and leaves out port 0.
    expect([...pairsOf(plan)].map((p) => `${p.protocol}/${p.port}`)).toEqual(['TCP/80', 'UDP/53']);
  });

  it('refuses more pairs than --max-pairs before anything runs, with the number and how to narrow', () => {
    const plan = () => planConnectivity(objects, { maxPairs: 11 });
    expect(plan).toThrow(ConnectivityError);
    expect(plan).toThrow(/^12 pairs .* are more than --max-pairs 11: narrow them with --from\/--to/);
    expect(planConnectivity(objects, { maxPairs: 12 }).total).toBe(12);
  });

  it("refuses the issue's 20,000 pods (399,980,000 pairs) by default, and plans them without holding a pair", () => {
    const objects = cluster(200, 100);
    let err: unknown;
    try {
      planConnectivity(objects, {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConnectivityError);
    expect(err).toMatchObject({ code: 'TooManyPairs', pairs: { count: 399_980_000, limit: DEFAULT_MAX_PAIRS } });
    expect((err as Error).message).toMatch(/^399,980,000 pairs \(20,000 source pods, 20,000 destination pods/);
    const all = planConnectivity(objects, { maxPairs: 400_000_000 });
    expect(all.total).toBe(399_980_000);
    // The pairs come one at a time: the first few are there without the other 399,979,997 being built.
    const first = pairsOf(all);
    expect([first.next().value, first.next().value].map((p) => p?.to)).toEqual(['ns0/pod1', 'ns0/pod2']);
    const ns0 = planConnectivity(objects, { from: parsePodFilter('--from', 'ns0') });
    expect(ns0.total).toBe(100 * 20_000 - 100);
  });
});

describe('parsePodFilter', () => {
  it('reads namespaces, pods and labels, and names a bad term', () => {
    expect(parsePodFilter('--from', ' prod , dev/web-0,app=web,tier!=db,k8s.io/part-of=x')).toEqual({
      namespaces: ['prod'],
      pods: ['dev/web-0'],
      labels: [
        { key: 'app', value: 'web', equal: true },
        { key: 'tier', value: 'db', equal: false },
        { key: 'k8s.io/part-of', value: 'x', equal: true },
      ],
    });
    expect(() => parsePodFilter('--to', 'a/b/c')).toThrow(
      '--to: "a/b/c" is neither a namespace, NAMESPACE/POD nor a label KEY=VALUE',
    );
    expect(() => parsePodFilter('--from', 'Prod')).toThrow(ConnectivityError);
    expect(() => parsePodFilter('--from', '=web')).toThrow(/"=web" is not a label/);
    expect(() => parsePodFilter('--from', '')).toThrow(/"" is neither/);
  });
});
