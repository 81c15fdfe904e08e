/**
 * The defects issue 17 found by trying kovn on Kube-OVN's own YAML and on
 * hostile input, each as a scenario through the real loader, controller and
 * simulator, checked on the verdict a user reads (`allowed`, `unsure`,
 * `reason`) and the warnings the answer carries. Each failed before its fix.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join3, kubeovn, pod, runYaml, scenarioDoc, scratch } from './run-yaml.ts';

const tmp = scratch('honest-defects');
afterAll(() => tmp.done());

const probe = (from: string, to: string, port?: number, allowed = true) =>
  `{from: ${from}, to: ${to}, protocol: ${port === undefined ? 'ICMP' : 'TCP'}${port === undefined ? '' : `, port: ${port}`}, allowed: ${allowed}}`;

describe('a NetworkPolicy that does not translate fails closed, never vanishes', () => {
  const policy = (name: string, ingress: string) => `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: ${name}, namespace: default}
spec:
  podSelector: {matchLabels: {app: b}}
  ingress: ${ingress}
`;
  it.each([
    ['port 99999', '[{ports: [{port: 99999}]}]', 'spec.ingress[0].ports[0].port'],
    ['endPort 70000', '[{ports: [{port: 80, endPort: 70000}]}]', 'spec.ingress[0].ports[0].endPort'],
    ['endPort below port', '[{ports: [{port: 90, endPort: 80}]}]', 'spec.ingress[0].ports[0].endPort'],
    [
      'an unknown operator in a peer selector',
      '[{from: [{podSelector: {matchExpressions: [{key: app, operator: Is, values: [a]}]}}]}]',
      'spec.ingress[0].from[0].podSelector.matchExpressions[0].operator',
    ],
  ])('%s: the selected pod stays isolated, the probe unsure, the field named', async (_what, ingress, field) => {
    const file = tmp.file(
      `np-${field.replaceAll(/\W/g, '')}.yaml`,
      join3(
        pod('a'),
        pod('b'),
        pod('c'),
        policy('bad', ingress),
        scenarioDoc('np', [probe('default/a', 'default/b', 80, false), probe('default/a', 'default/c', 80)]),
      ),
    );
    const r = await runYaml(file);
    const [toB, toC] = r.results;
    expect(toB).toMatchObject({ allowed: false, reason: expect.stringContaining('NetworkPolicy default/bad') });
    expect(toB!.unsure).toContain('NetworkPolicy default/bad');
    // A pod the policy does not select is untouched, and its probe sure.
    expect(toC).toMatchObject({ allowed: true, ok: true });
    expect(toC!.unsure).toBeUndefined();
    expect(r.warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'InvalidField', kind: 'NetworkPolicy', name: 'bad', field }),
        expect.objectContaining({ code: 'InvalidNetworkPolicy', kind: 'NetworkPolicy', name: 'bad' }),
      ]),
    );
  });
});

describe('Subnets as Kube-OVN validates them, no stricter', () => {
  it('gatewayType "" (what kubectl get -o yaml prints) is distributed', async () => {
    const file = tmp.file(
      'gwtype.yaml',
      join3(
        `apiVersion: kubeovn.io/v1
kind: Subnet
metadata: {name: s1}
spec: {cidrBlock: 10.40.0.0/24, gatewayType: "", namespaces: [ns1]}
`,
        pod('a', 'ns1'),
        pod('b'),
        scenarioDoc('gw', [probe('ns1/a', 'default/b', 80), probe('ns1/a', '203.0.113.1', 443)]),
      ),
    );
    const r = await runYaml(file);
    expect(r.results.map((x) => [x.allowed, x.ok])).toEqual([
      [true, true],
      [true, true],
    ]);
    expect(r.warnings).toEqual([]);
  });

  it('a Subnet overlapping ovn-default is the one refused; the default namespace keeps its addresses', async () => {
    const file = tmp.file(
      'overlap.yaml',
      join3(
        `apiVersion: kubeovn.io/v1
kind: Subnet
metadata: {name: dup}
spec: {cidrBlock: 10.16.5.0/24, namespaces: [other]}
`,
        pod('a'),
        pod('b'),
        scenarioDoc('overlap', [probe('default/a', 'default/b', 80)]),
      ),
    );
    const r = await runYaml(file);
    expect(r.results[0]).toMatchObject({ allowed: true, ok: true });
    expect(r.warnings).toEqual([
      expect.objectContaining({
        code: 'ValidateLogicalSwitchFailed',
        kind: 'Subnet',
        name: 'dup',
        field: 'spec.cidrBlock',
        message: expect.stringContaining('ovn-default'),
      }),
    ]);
  });

  it('inside the service CIDR: a custom VPC subnet is valid; in the default VPC only the API server address refuses one', async () => {
    const file = tmp.file(
      'svc-cidr.yaml',
      join3(
        kubeovn('Vpc', 'v1', '{namespaces: [t1]}'),
        kubeovn('Subnet', 'custom', '{vpc: v1, cidrBlock: 10.100.1.0/24, namespaces: [t1]}'),
        kubeovn('Subnet', 'near', '{cidrBlock: 10.100.2.0/24, namespaces: [t2]}'),
        kubeovn('Subnet', 'apisrv', '{cidrBlock: 10.96.0.0/24, namespaces: [t3]}'),
        pod('a', 't1'),
        pod('b', 't1'),
        pod('c', 't2'),
        pod('d', 't2'),
        scenarioDoc('svc', [probe('t1/a', 't1/b', 80), probe('t2/c', 't2/d', 80)]),
      ),
    );
    const r = await runYaml(file);
    expect(r.results.map((x) => x.ok)).toEqual([true, true]);
    expect(r.warnings.map((w) => [w.code, w.name, w.field])).toEqual([
      ['ValidateLogicalSwitchFailed', 'apisrv', 'spec.cidrBlock'],
    ]);
    expect(r.warnings[0]!.message).toContain('10.96.0.1');
  });

  it("in the default VPC a subnet holding a node's InternalIP is refused, the node and address named", async () => {
    const node = (name: string, ip: string) =>
      `apiVersion: v1\nkind: Node\nmetadata: {name: ${name}}\nstatus: {addresses: [{type: InternalIP, address: ${ip}}, {type: Hostname, address: ${name}}]}\n`;
    const file = tmp.file(
      'node-ip.yaml',
      join3(
        node('n8', '10.78.0.5'),
        node('n9', '10.77.0.5'),
        kubeovn('Subnet', 'onnode', '{cidrBlock: 10.77.0.0/24, namespaces: [t4]}'),
        pod('a'),
        pod('b'),
        scenarioDoc('nodeip', [probe('default/a', 'default/b', 80)]),
      ),
    );
    const r = await runYaml(file);
    expect(r.warnings.map((w) => [w.code, w.name, w.field])).toEqual([
      ['ValidateLogicalSwitchFailed', 'onnode', 'spec.cidrBlock'],
    ]);
    expect(r.warnings[0]!.message).toContain("node n9's address 10.77.0.5");
    expect(r.warnings[0]!.message).not.toContain('n8');
  });

  it('a Subnet naming a Vpc that does not exist is an error on the Subnet', async () => {
    const file = tmp.file(
      'novpc.yaml',
      join3(
        kubeovn('Subnet', 'lost', '{vpc: nope, cidrBlock: 10.70.0.0/24, namespaces: [l]}'),
        pod('a'),
        pod('b'),
        scenarioDoc('novpc', [probe('default/a', 'default/b', 80)]),
      ),
    );
    const r = await runYaml(file);
    expect(r.warnings).toEqual([
      expect.objectContaining({
        code: 'ValidateLogicalSwitchFailed',
        kind: 'Subnet',
        name: 'lost',
        field: 'spec.vpc',
        message: expect.stringContaining('Vpc nope does not exist'),
      }),
    ]);
  });

  it('an IPPool entry with host bits is read as net.ParseCIDR reads it, with a warning', async () => {
    const file = tmp.file(
      'pool.yaml',
      join3(
        kubeovn('IPPool', 'p1', '{subnet: ovn-default, ips: [10.16.0.210/30]}'),
        pod('a', 'default', 'annotations: {ovn.kubernetes.io/ip_pool: p1}'),
        pod('b'),
        scenarioDoc('pool', [probe('default/b', '10.16.0.208', 80)]),
      ),
    );
    const r = await runYaml(file);
    expect(r.results[0]).toMatchObject({ allowed: true, ok: true });
    expect(r.warnings).toEqual([
      expect.objectContaining({ code: 'LimitedField', kind: 'IPPool', name: 'p1', field: 'spec.ips' }),
    ]);
    expect(r.warnings[0]!.message).toContain('10.16.0.208/30');
  });
});

describe('placement, owners and kinds', () => {
  it('nodeSelector is honoured; a pod no node fits stays pending, denied and reported', async () => {
    const file = tmp.file(
      'placement.yaml',
      join3(
        'apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {disk: hdd}}\n',
        'apiVersion: v1\nkind: Node\nmetadata: {name: n2, labels: {disk: ssd}}\n',
        'apiVersion: v1\nkind: Pod\nmetadata: {name: fast, namespace: default}\nspec: {nodeSelector: {disk: ssd}, containers: [{name: c, image: x}]}\n',
        'apiVersion: v1\nkind: Pod\nmetadata: {name: fast2, namespace: default}\nspec: {nodeSelector: {disk: ssd}, containers: [{name: c, image: x}]}\n',
        'apiVersion: v1\nkind: Pod\nmetadata: {name: gpu, namespace: default}\nspec: {nodeSelector: {gpu: "yes"}, containers: [{name: c, image: x}]}\n',
        pod('b'),
        scenarioDoc('place', [probe('default/b', 'default/gpu', 80, false), probe('default/b', 'default/fast', 80)]),
      ),
    );
    const { loadScenario } = await import('../../scenarios/load.ts');
    const { expandObjects } = await import('../../scenarios/expand.ts');
    const ex = await expandObjects(
      loadScenario(file).objects.map((o) => o.object),
      {},
    );
    const nodeOf = (n: string) =>
      (ex.objects.find((o) => o.kind === 'Pod' && o.metadata.name === n)?.spec as { nodeName?: string } | undefined)
        ?.nodeName;
    expect([nodeOf('fast'), nodeOf('fast2'), nodeOf('gpu')]).toEqual(['n2', 'n2', undefined]);
    const r = await runYaml(file);
    expect(r.results[0]).toMatchObject({ allowed: false, ok: true, reason: expect.stringContaining('pending') });
    expect(r.warnings).toEqual([
      expect.objectContaining({
        code: 'FailedScheduling',
        kind: 'Pod',
        name: 'gpu',
        message: expect.stringContaining('nodeSelector gpu=yes'),
      }),
    ]);
  });

  it('a kubectl dump with a Deployment, its ReplicaSet and its Pod gives one pod, not three', async () => {
    const file = tmp.file(
      'dump.yaml',
      `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: default, uid: d-1}
  spec: {replicas: 1, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: x}]}}}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: web-5d9c
    namespace: default
    uid: rs-1
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d-1, controller: true}]
  spec: {replicas: 1, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: x}]}}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-5d9c-abcde
    namespace: default
    labels: {app: web}
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d9c, uid: rs-1, controller: true}]
  spec: {containers: [{name: c, image: x}]}
`,
    );
    const { loadManifests } = await import('../../scenarios/load.ts');
    const { expandObjects } = await import('../../scenarios/expand.ts');
    const pods = (
      await expandObjects(
        loadManifests([file]).objects.map((o) => o.object),
        {},
      )
    ).objects.filter((o) => o.kind === 'Pod');
    expect(pods.map((p) => p.metadata.name)).toEqual(['web-5d9c-abcde']);
  });

  it('apiVersion is checked with kind: a Calico NetworkPolicy or a kubeovn.io/v2 Subnet is not read as the core kind', async () => {
    const file = tmp.file(
      'foreign.yaml',
      join3(
        pod('a'),
        pod('b'),
        'apiVersion: crd.projectcalico.org/v1\nkind: NetworkPolicy\nmetadata: {name: deny, namespace: default}\nspec: {podSelector: {}, ingress: []}\n',
        'apiVersion: kubeovn.io/v2\nkind: Subnet\nmetadata: {name: s2}\nspec: {cidrBlock: 10.16.0.0/24, namespaces: [default]}\n',
        scenarioDoc('foreign', [probe('default/a', 'default/b', 80)]),
      ),
    );
    const r = await runYaml(file);
    // Kube-OVN acts on neither: the probe is allowed, and sure (no Kube-OVN cluster would act on them).
    expect(r.results[0]).toMatchObject({ allowed: true, ok: true });
    expect(r.warnings.map((w) => [w.code, w.kind, w.name])).toEqual([
      ['UnsupportedKind', 'NetworkPolicy', 'deny'],
      ['UnsupportedKind', 'Subnet', 's2'],
    ]);
    expect(r.warnings[0]!.message).toContain('crd.projectcalico.org/v1 NetworkPolicy is not networking.k8s.io/v1');
  });

  it("a probe to a SwitchLBRule VIP is the VPC load balancer's, not an internet host's: on the client's own subnet its ARP goes unanswered", async () => {
    const file = tmp.file(
      'slr.yaml',
      join3(
        pod('a'),
        kubeovn(
          'SwitchLBRule',
          'slr',
          '{vip: 10.16.9.9, namespace: default, selector: ["app:a"], ports: [{name: p, port: 80, targetPort: 80, protocol: TCP}]}',
        ),
        pod('b'),
        scenarioDoc('slr', [probe('default/b', '10.16.9.9', 80)]),
      ),
    );
    const r = await runYaml(file);
    expect(r.results[0]!.unsure).toBeUndefined();
    // 10.16.9.9 is inside ovn-default, b's own subnet: b ARPs for it, and OVN 23.03 answers no ARP for
    // a load balancer's VIP (real packets on the lab agree); an internet host would have been routed out.
    expect(r.results[0]!.allowed).toBe(false);
    expect(r.results[0]!.reason).toContain('ARPs for 10.16.9.9 on its own subnet ovn-default and nothing answers');
    expect(r.warnings).toEqual([]);
  });
});

describe('objects the API server refuses', () => {
  it.each([
    ['a slash', 'web/x'],
    ['a quote', 'web"x'],
    ['a control character', 'web\u001b[2Jx'],
    ['300 characters', 'w'.repeat(300)],
  ])('a pod name with %s is refused with the rule it breaks, the rest runs', async (_what, name) => {
    const file = tmp.file(
      `name-${_what.replaceAll(' ', '')}.yaml`,
      join3(
        `apiVersion: v1\nkind: Pod\nmetadata: {name: ${JSON.stringify(name)}, namespace: default}\nspec: {containers: [{name: c, image: x}]}\n`,
        pod('a'),
        pod('b'),
        scenarioDoc('names', [probe('default/a', 'default/b', 80)]),
      ),
    );
    const r = await runYaml(file);
    expect(r.results[0]).toMatchObject({ allowed: true, ok: true });
    expect(r.warnings).toEqual([
      expect.objectContaining({ code: 'InvalidObject', kind: 'Pod', field: 'metadata.name', name }),
    ]);
  });

  it("a Service whose clusterIP is outside the service CIDR, or a pod's address, is refused, its probes unsure", async () => {
    const file = tmp.file(
      'svcip.yaml',
      join3(
        kubeovn('Vpc', 'v1', '{namespaces: [t1]}'),
        kubeovn('Subnet', 'custom', '{vpc: v1, cidrBlock: 10.100.1.0/24, namespaces: [t1]}'),
        pod('a'),
        pod('b'),
        pod('x', 't1'),
        'apiVersion: v1\nkind: Service\nmetadata: {name: far, namespace: default}\nspec: {clusterIP: 192.168.1.1, selector: {app: b}, ports: [{port: 80}]}\n',
        // A custom VPC's subnet may lie in the service CIDR (Kube-OVN allows it): a VIP there must not be a pod's address.
        'apiVersion: v1\nkind: Service\nmetadata: {name: mine, namespace: t1, annotations: {ovn.kubernetes.io/vpc: v1}}\nspec: {clusterIP: 10.100.1.2, selector: {app: x}, ports: [{port: 80}]}\n',
        scenarioDoc('svcip', [probe('default/a', 'svc/default/far', 80), probe('default/a', 'default/b', 80)]),
      ),
    );
    const r = await runYaml(file);
    expect(r.results[0]!.unsure).toContain('InvalidService');
    expect(r.warnings.map((w) => [w.code, w.name, w.field])).toEqual([
      ['InvalidService', 'far', 'spec.clusterIP'],
      ['InvalidService', 'mine', 'spec.clusterIP'],
    ]);
    expect(r.warnings[1]!.message).toContain("x.t1's address");
  });
});

describe('probes between VPCs', () => {
  it('an address in a peered VPC is resolved there, and no reason names a node port for a custom-VPC pod', async () => {
    const { join } = await import('node:path');
    const r = await runYaml(join(import.meta.dirname, '..', '..', 'scenarios', 'vpc-peering.yaml'));
    expect(r.results.every((x) => x.ok)).toBe(true);
    const byIp = r.results.filter((x) => x.to === '10.130.0.2');
    expect(byIp.map((x) => [x.step, x.allowed])).toEqual([
      [0, false],
      [1, true],
    ]);
    for (const x of r.results) expect(x.reason ?? '').not.toMatch(/node-/);
    expect(byIp[0]!.reason).toContain('VPC vpc-a');
  });
});

describe('warnings and steps', () => {
  it('an object a step applies stands from that step on: earlier probes are not unsure because of it', async () => {
    const file = tmp.file(
      'steps.yaml',
      join3(
        pod('a'),
        pod('b'),
        `apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: {name: steps}
spec:
  expect:
  - {from: default/a, to: 10.16.7.7, protocol: TCP, port: 80, allowed: false}
  steps:
  - apply:
    - {apiVersion: kubeovn.io/v1, kind: RouterLBRule, metadata: {name: v}, spec: {vpc: ovn-cluster}}
    expect:
    - {from: default/a, to: 10.16.7.7, protocol: TCP, port: 80, allowed: false}
`,
      ),
    );
    const r = await runYaml(file);
    expect(r.results.map((x) => [x.step, x.ok, x.unsure !== undefined])).toEqual([
      [0, true, false],
      [1, false, true],
    ]);
    expect(r.warnings.map((w) => [w.code, w.kind, w.name])).toEqual([['UnsupportedKind', 'RouterLBRule', 'v']]);
  });
});
