// Denied probes name the object that decided them: end to end through the controller for a
// NetworkPolicy and a private Subnet, and row by row for routes, router policies and the rest.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMatch } from '../model/match/index.ts';
import { emptyTopology, keyOf, type RouterPolicy } from '../model/topology/index.ts';
import { explainDrop } from './explain.ts';
import { formatTrace } from '../sim/trace.ts';
import { assembleScenario, loadScenario, readScenarioText } from './load.ts';
import { runScenario, SimWorld } from './run.ts';
import { traceScenario } from './trace.ts';

const loadText = (text: string) => assembleScenario(readScenarioText('explain.yaml', text), 'explain');

const SCENARIO = `
apiVersion: kubeovn.io/v1
kind: Subnet
metadata: { name: vault }
spec: { cidrBlock: 10.66.0.0/24, namespaces: [vault], private: true, allowSubnets: [10.16.0.0/16] }
---
apiVersion: v1
kind: Pod
metadata: { name: client, namespace: default }
spec: { containers: [] }
---
apiVersion: v1
kind: Pod
metadata: { name: secret, namespace: vault }
spec: { containers: [] }
---
apiVersion: kubeovn.io/v1
kind: Subnet
metadata: { name: lab }
spec: { cidrBlock: 10.77.0.0/24, namespaces: [lab] }
---
apiVersion: v1
kind: Pod
metadata: { name: probe, namespace: lab }
spec: { containers: [] }
---
apiVersion: v1
kind: Pod
metadata: { name: db, namespace: shop, labels: { app: db } }
spec: { containers: [] }
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: { name: db-closed, namespace: shop }
spec: { podSelector: { matchLabels: { app: db } }, policyTypes: [Ingress] }
---
apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: { name: explain }
spec:
  expect:
    - { from: default/client, to: shop/db, protocol: TCP, port: 5432, allowed: false }
    - { from: lab/probe, to: vault/secret, protocol: TCP, port: 8200, allowed: false }
    - { from: default/client, to: vault/secret, protocol: TCP, port: 8200, allowed: true }
`;

describe('why a probe is denied', () => {
  it('names the NetworkPolicy and the private Subnet that decided', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kovn-explain-'));
    try {
      writeFileSync(join(dir, 's.yaml'), SCENARIO);
      const world = new SimWorld();
      const r = await runScenario(loadScenario(join(dir, 's.yaml')), { world });
      await world.close();
      expect(r.results.map((x) => x.ok)).toEqual([true, true, true]);
      expect(r.results[0]!.reason).toBe(
        'NetworkPolicy shop/db-closed: no ingress rule admits it (ACL drop, priority 2000, flow priority 3000)',
      );
      // lab (10.77.0.0/24) is not in the vault's allowSubnets; the default subnet (10.16.0.0/16) is.
      expect(r.results[1]!.reason).toBe(
        'Subnet vault is private: not in its allowSubnets (ACL drop, priority 1000, flow priority 2000)',
      );
      expect(r.results[2]!.allowed).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names an ACL's priority and its logical flow's the same way in the trace and in the reason", async () => {
    const s = assembleScenario(
      readScenarioText(
        'acls.yaml',
        `
apiVersion: kubeovn.io/v1
kind: Subnet
metadata: { name: guarded }
spec:
  cidrBlock: 10.67.0.0/24
  namespaces: [guarded]
  acls: [{ direction: to-lport, priority: 1002, match: "tcp.dst == 22", action: drop }]
---
apiVersion: v1
kind: Pod
metadata: { name: box, namespace: guarded }
spec: { containers: [] }
---
apiVersion: v1
kind: Pod
metadata: { name: client, namespace: default }
spec: { containers: [] }
`,
      ),
      'acls',
    );
    for (const [probe, reason] of [
      [
        { from: 'default/client', to: 'guarded/box', protocol: 'TCP' as const, port: 22, allowed: false },
        "Subnet guarded's spec.acls, ingress (ACL drop, priority 1002, flow priority 2002)",
      ],
      [
        { from: 'default/client', to: 'shop/db', protocol: 'TCP' as const, port: 5432, allowed: false },
        'NetworkPolicy shop/db-closed: no ingress rule admits it (ACL drop, priority 2000, flow priority 3000)',
      ],
    ] as const) {
      const scenario = probe.to === 'shop/db' ? loadText(SCENARIO) : s;
      const t = await traceScenario(scenario, probe);
      expect(t.reason).toBe(reason);
      // The stage line of the ACL that dropped says the same two priorities.
      const line = formatTrace(t.stages).split('\n').at(-1)!;
      expect(line).toMatch(/ls_out_acl +acl .*: drop/);
      expect(line).toContain(reason.slice(reason.indexOf('priority'), -1));
    }
  });

  it('says where a packet went instead, and the static route that sent it there', async () => {
    const world = new SimWorld();
    const r = await runScenario(loadScenario(join(import.meta.dirname, 'vpc-routes.yaml')), { world });
    await world.close();
    const high = r.results.find((x) => x.to === 'team-a2/high' && x.protocol === 'TCP')!;
    expect(high.reason).toBe(
      'went to appliance.team-a, not high.team-a2: route 10.121.0.128/25 via 10.120.0.10 of Vpc vpc-a',
    );
  });

  it('names router policies and routes by their owner, and says "no route to host" for a missing route', () => {
    const t = emptyTopology();
    const policy: RouterPolicy = {
      router: 'ovn-cluster',
      priority: 31000,
      match: parseMatch('ip4.dst == 10.9.0.0/16'),
      action: 'drop',
      nexthops: [],
      options: {},
      externalIds: { vpc: 'ovn-cluster' },
    };
    (t.routerPolicy as Map<string, RouterPolicy>).set(keyOf('routerPolicy', policy), policy);
    const rule = { kind: 'policy' as const, priority: 31000, key: keyOf('routerPolicy', policy) };
    expect(explainDrop({ datapath: 'ovn-cluster', stage: 'lr_in_policy', reason: 'router policy drop', rule }, t)).toBe(
      'router policy of Vpc ovn-cluster: drop at priority 31000 (ovn-cluster lr_in_policy)',
    );
    expect(explainDrop({ datapath: 'vpc-a', stage: 'lr_in_ip_routing', reason: 'no route' }, t)).toBe(
      'no route to host: router vpc-a has no route for the destination (vpc-a lr_in_ip_routing)',
    );
    const lb = { kind: 'lb' as const, priority: 120, key: 'lb|10.96.0.9:80', name: 'cluster-tcp-loadbalancer' };
    expect(
      explainDrop(
        { datapath: 'ovn-default', stage: 'ls_in_lb', reason: 'VIP 10.96.0.9:80 has no backends', rule: lb },
        t,
      ),
    ).toBe(
      'no endpoint: VIP 10.96.0.9:80 has no backends (load balancer cluster-tcp-loadbalancer, ovn-default ls_in_lb)',
    );
    expect(explainDrop({ datapath: 'sw', stage: 'ls_in_l2_lkup', reason: 'no port for the destination MAC' }, t)).toBe(
      'dropped in sw ls_in_l2_lkup: no port for the destination MAC',
    );
  });
});
