/**
 * A centralized subnet's gateways as Kube-OVN chooses them (pkg/controller/subnet.go
 * reconcileDefaultCentralizedSubnetRouteInDefaultVpc, reconcileEcmpCentralizedSubnetRouteInDefaultVpc):
 * the 29000 router policy's next hops and external_ids, status.activateGateway
 * following node readiness, and natOutgoingPolicyRules' status and validation.
 */
import { describe, expect, it } from 'vitest';
import type { SimBackend } from '../../backends/sim/index.ts';
import { printMatch } from '../../model/match/index.ts';
import type { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import type { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { controllerOnSim } from './on-sim.ts';

const node = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
});

const setup = controllerOnSim();

const subnet = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'kubeovn.io/v1',
  kind: 'Subnet',
  metadata: { name },
  spec,
});

/** The subnet's 29000 policies: match, next hops, external_ids. */
async function gatewayPolicies(backend: SimBackend, name: string) {
  const t = await backend.read();
  return [...t.routerPolicy.values()]
    .filter((p) => p.priority === 29000 && p.externalIds.subnet === name)
    .map((p) => ({ match: printMatch(p.match), nexthops: p.nexthops, ids: p.externalIds }));
}

const joinIp = async (cluster: MemoryCluster, n: string) =>
  (await cluster.get({ kind: 'Node', name: n }))?.metadata.annotations?.['ovn.kubernetes.io/ip_address'];

async function setReady(cluster: MemoryCluster, c: Controller, n: string, ready: boolean) {
  await cluster.patch(
    { kind: 'Node', name: n },
    { status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } },
    { subresource: 'status' },
  );
  await settled(c);
}

const status = async (cluster: MemoryCluster, name: string) =>
  (await cluster.get({ kind: 'Subnet', name }))?.status as Record<string, unknown>;

describe('centralized gateways', () => {
  it('primary-backup: the first ready node; it moves when that node is not ready and stays when it is back', async () => {
    const { cluster, backend, c } = await setup([
      node('n1'),
      node('n2'),
      node('n3'),
      subnet('billing', { cidrBlock: '10.90.0.0/24', gatewayType: 'centralized', gatewayNode: 'n2, n3:192.168.0.3' }),
    ]);
    const [n2, n3] = [await joinIp(cluster, 'n2'), await joinIp(cluster, 'n3')];
    expect(n2).toMatch(/^100\.64\./);
    const policy = (ip: string | undefined, n: string) => [
      { match: 'ip4.src == 10.90.0.0/24', nexthops: [ip], ids: { subnet: 'billing', [n]: ip } },
    ];
    expect(await gatewayPolicies(backend, 'billing')).toEqual(policy(n2, 'n2'));
    expect(await status(cluster, 'billing')).toMatchObject({ activateGateway: 'n2' });

    await setReady(cluster, c, 'n2', false);
    expect(await gatewayPolicies(backend, 'billing')).toEqual(policy(n3, 'n3'));
    expect(await status(cluster, 'billing')).toMatchObject({ activateGateway: 'n3' });

    // Back: Kube-OVN keeps the active gateway while it is ready.
    await setReady(cluster, c, 'n2', true);
    expect(await gatewayPolicies(backend, 'billing')).toEqual(policy(n3, 'n3'));

    // None ready: the policy is left as it was, and the subnet is not Ready.
    await setReady(cluster, c, 'n2', false);
    await setReady(cluster, c, 'n3', false);
    expect(await gatewayPolicies(backend, 'billing')).toEqual(policy(n3, 'n3'));
    const conds = (await status(cluster, 'billing')).conditions as { type: string; status: string; reason: string }[];
    expect(conds.find((x) => x.type === 'Ready')).toMatchObject({ status: 'False', reason: 'NoActiveGatewayFound' });
  });

  it('enableEcmp with gatewayNodeSelectors: every ready selected node is a next hop, named in external_ids', async () => {
    const { cluster, backend, c } = await setup([
      node('n1', { egress: 'true' }),
      node('n2'),
      node('n3', { egress: 'true' }),
      subnet('batch', {
        cidrBlock: '10.91.0.0/24',
        gatewayType: 'centralized',
        gatewayNodeSelectors: [{ matchLabels: { egress: 'true' } }],
        enableEcmp: true,
      }),
    ]);
    const [n1, n3] = [await joinIp(cluster, 'n1'), await joinIp(cluster, 'n3')];
    expect(await gatewayPolicies(backend, 'batch')).toEqual([
      {
        match: 'ip4.src == 10.91.0.0/24',
        nexthops: [n1, n3],
        ids: { subnet: 'batch', n1, n3 },
      },
    ]);
    expect(await status(cluster, 'batch')).toMatchObject({ activateGateway: '' });
    await setReady(cluster, c, 'n1', false);
    expect((await gatewayPolicies(backend, 'batch'))[0]?.nexthops).toEqual([n3]);
    // A label added makes a gateway.
    await cluster.patch({ kind: 'Node', name: 'n2' }, { metadata: { labels: { egress: 'true' } } });
    await settled(c);
    expect((await gatewayPolicies(backend, 'batch'))[0]?.nexthops).toEqual([await joinIp(cluster, 'n2'), n3]);
  });

  it('centralized without gatewayNode or selectors: no reroute, Ready False NoReadyGateway', async () => {
    const { cluster, backend } = await setup([
      node('n1'),
      subnet('lost', { cidrBlock: '10.92.0.0/24', gatewayType: 'centralized' }),
    ]);
    expect(await gatewayPolicies(backend, 'lost')).toEqual([]);
    const conds = (await status(cluster, 'lost')).conditions as { type: string; status: string; reason: string }[];
    expect(conds.find((x) => x.type === 'Ready')).toMatchObject({ status: 'False', reason: 'NoReadyGateway' });
  });
});

describe('natOutgoingPolicyRules', () => {
  it("status lists each rule with Kube-OVN's rule ID; nothing without natOutgoing", async () => {
    const rules = [
      { match: { dstIPs: '192.0.2.0/24' }, action: 'forward' },
      { match: { srcIPs: '10.93.0.0/25', dstIPs: '192.0.2.7' }, action: 'nat' },
    ];
    const { cluster } = await setup([
      node('n1'),
      subnet('edge', { cidrBlock: '10.93.0.0/24', natOutgoing: true, natOutgoingPolicyRules: rules }),
      subnet('quiet', { cidrBlock: '10.94.0.0/24', natOutgoing: false, natOutgoingPolicyRules: rules }),
    ]);
    const st = await status(cluster, 'edge');
    expect(st.natOutgoingPolicyRules).toEqual([
      { ruleID: expect.stringMatching(/^[0-9a-f]{12}$/), ...rules[0] },
      { ruleID: expect.stringMatching(/^[0-9a-f]{12}$/), ...rules[1] },
    ]);
    expect((await status(cluster, 'quiet')).natOutgoingPolicyRules).toEqual([]);
  });

  it('a malformed rule refuses the Subnet, naming the field (nothing half-applied)', async () => {
    const { cluster, backend } = await setup([
      node('n1'),
      subnet('bad', {
        cidrBlock: '10.95.0.0/24',
        natOutgoing: true,
        natOutgoingPolicyRules: [
          { match: { dstIPs: '192.0.2.0/24' }, action: 'forward' },
          { match: { srcIPs: '10.95.0.0/24', dstIPs: 'fd00::/64' }, action: 'nat' },
        ],
      }),
      subnet('worse', {
        cidrBlock: '10.96.0.0/24',
        natOutgoingPolicyRules: [{ match: { dstIPs: '192.0.2.300' }, action: 'snat' }],
      }),
    ]);
    expect((await backend.read()).switch.has('bad')).toBe(false);
    const conds = (await status(cluster, 'bad')).conditions as { type: string; status: string; message: string }[];
    expect(conds.find((x) => x.type === 'Validated')).toMatchObject({ status: 'False' });
    expect(conds.find((x) => x.type === 'Validated')?.message).toContain('spec.natOutgoingPolicyRules[1].match');
    const worse = (await status(cluster, 'worse')).conditions as { type: string; message: string }[];
    expect(worse.find((x) => x.type === 'Validated')?.message).toContain('spec.natOutgoingPolicyRules[0].action');
  });
});

describe('externalEgressGateway', () => {
  it("is refused as Kube-OVN's validator refuses it, and two subnets may not share a routing table", async () => {
    const { cluster, backend } = await setup([
      node('n1'),
      subnet('withnat', { cidrBlock: '10.100.0.0/24', natOutgoing: true, externalEgressGateway: '192.168.0.254' }),
      subnet('family', { cidrBlock: '10.101.0.0/24', externalEgressGateway: 'fd00::1' }),
      subnet('first', {
        cidrBlock: '10.102.0.0/24',
        externalEgressGateway: '192.168.0.254',
        policyRoutingTableID: 1000,
      }),
      subnet('second', {
        cidrBlock: '10.103.0.0/24',
        externalEgressGateway: '192.168.0.253',
        policyRoutingTableID: 1000,
      }),
    ]);
    const t = await backend.read();
    expect(['withnat', 'family', 'first', 'second'].filter((n) => t.switch.has(n))).toEqual(['first']);
    const validated = async (name: string) =>
      ((await status(cluster, name)).conditions as { type: string; message: string }[]).find(
        (x) => x.type === 'Validated',
      )?.message;
    expect(await validated('withnat')).toMatch(/conflict configuration: natOutgoing and externalEgressGateway/);
    expect(await validated('family')).toMatch(/address family is conflict with CIDR/);
    expect(await validated('second')).toMatch(/policy routing table ID 1000 is conflict with subnet first/);
  });
});

describe('a gateway node that comes later', () => {
  it('becomes the next hop once it has its join address', async () => {
    const { cluster, backend, c } = await setup([
      node('n1'),
      subnet('late', { cidrBlock: '10.104.0.0/24', gatewayType: 'centralized', gatewayNode: 'n9' }),
    ]);
    expect(await gatewayPolicies(backend, 'late')).toEqual([]);
    await cluster.create(node('n9'));
    await settled(c);
    const ip = await joinIp(cluster, 'n9');
    expect(ip).toMatch(/^100\.64\./);
    expect((await gatewayPolicies(backend, 'late'))[0]?.nexthops).toEqual([ip]);
    expect(await status(cluster, 'late')).toMatchObject({ activateGateway: 'n9' });
  });
});
