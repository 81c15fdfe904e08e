// The lab world against the simulator: every probe of the scenarios gets the same verdict with real
// packets (real ovs-vswitchd on the userspace datapath, ovn-controller, namespaces, sockets) as in the
// simulator; and nothing of a lab run outlives it, however it ends.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pollUntil } from '../../backends/ovn/control-plane/exec.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { assembleScenario, loadScenario, readScenarioText } from '../load.ts';
import { type ProbeResult, runScenario, SimWorld } from '../run.ts';
import { PROVIDER_UNSURE, SCTP_UNSURE } from './answer.ts';
import { ATTACHMENT_ROUTE_UNSURE } from './attachments.ts';
import { labAvailable, linksOf, netnsOf } from './testing.ts';
import { LabWorld } from './world.ts';
import { KOVN_IDS } from '../../node/daemon/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./exit.fixture.ts', import.meta.url));

const verdicts = (rs: readonly ProbeResult[]) =>
  rs.map((r) => `${r.step} ${r.from} -> ${r.to} ${r.protocol}/${r.port ?? ''}: ${r.allowed}`);

/** A pod's OVS interface as the chassis holds it: who plugged it (the daemon records the container). */
interface Plugged {
  readonly name: string;
  readonly ifaceId: string;
  readonly containerId: string | undefined;
}

async function both(
  file: string,
): Promise<{ sim: ProbeResult[]; lab: ProbeResult[]; runId: string; plugged: Plugged[] }> {
  const scenario = loadScenario(file);
  const sim = await runScenario(scenario, { world: new SimWorld() });
  const world = await LabWorld.start();
  try {
    const lab = await runScenario(scenario, { world });
    const plugged = world.chassis.vswitch.cache
      .rows('Interface')
      .filter((i) => i.external_ids['iface-id'] !== undefined)
      .map((i) => ({
        name: i.name,
        ifaceId: i.external_ids['iface-id']!,
        containerId: i.external_ids[KOVN_IDS.containerId],
      }));
    return { sim: [...sim.results], lab: [...lab.results], runId: world.runId, plugged };
  } finally {
    await world.close();
  }
}

describe.skipIf(!labAvailable('lab world'))('the lab answers as the simulator does', () => {
  it('quickstart: every probe the same verdict, all as expected, and nothing of the run left', async () => {
    const r = await both('scenarios/quickstart.yaml');
    expect(r.lab).toHaveLength(13);
    expect(verdicts(r.lab)).toEqual(verdicts(r.sim));
    expect(r.lab.filter((x) => !x.ok)).toEqual([]);
    // Every pod was plugged by kovn's node daemon, called by the CNI plugin (the container id is the
    // runtime's, and the host end is named from it), every node's ovn0 by the node set-up.
    const pods = r.plugged.filter((p) => !p.ifaceId.startsWith('node-'));
    expect(pods.map((p) => p.ifaceId).sort()).toEqual([
      'db-0.data',
      'debug.default',
      'web-9jwrnlsw9q-7ztmd.shop',
      'web-9jwrnlsw9q-hl97j.shop',
    ]);
    for (const p of pods) expect(p.name).toBe(`${p.containerId}_h`);
    expect(
      r.plugged
        .filter((p) => p.ifaceId.startsWith('node-'))
        .map((p) => p.ifaceId)
        .sort(),
    ).toEqual(['node-kovn-node-1', 'node-kovn-node-2']);
    expect(netnsOf(r.runId)).toEqual([]);
    expect(linksOf(r.runId)).toEqual([]);
  });

  // Every other shipped scenario: the (default network, private subnet, Service load balancing,
  // NetworkPolicy, egress through a gateway, port security) and the rest.
  const shipped = readdirSync('scenarios')
    .filter((f) => f.endsWith('.yaml') && f !== 'quickstart.yaml')
    .map((f) => f.replace(/\.yaml$/, ''));
  it("the issue's scenarios are among them", () => {
    for (const n of [
      'default-network',
      'private-subnet',
      'service-lb',
      'network-policy',
      'egress-gateway',
      'port-security',
    ])
      expect(shipped).toContain(n);
  });
  // What the lab leaves unanswered, counted over every shipped scenario and capped (the last test).
  const excused = { probes: 0, sctp: 0, hosts: 0, routes: 0, scenarios: 0 };
  for (const name of shipped) {
    it(`${name}: the same verdict per probe as the simulator (SCTP and physical hosts said unsure, not answered)`, async () => {
      const r = await both(`scenarios/${name}.yaml`);
      excused.scenarios++;
      excused.probes += r.lab.length;
      excused.sctp += r.lab.filter((x) => x.unsure === SCTP_UNSURE).length;
      excused.hosts += r.lab.filter((x) => x.unsure === PROVIDER_UNSURE).length;
      excused.routes += r.lab.filter((x) => ATTACHMENT_ROUTE_UNSURE.test(x.unsure ?? '')).length;
      const answered = r.lab.filter(
        (x) =>
          x.unsure !== SCTP_UNSURE && x.unsure !== PROVIDER_UNSURE && !ATTACHMENT_ROUTE_UNSURE.test(x.unsure ?? ''),
      );
      const kept = new Set(answered.map((x) => `${x.step} ${x.from} ${x.to} ${x.protocol} ${x.port}`));
      const simAnswered = r.sim.filter((x) => kept.has(`${x.step} ${x.from} ${x.to} ${x.protocol} ${x.port}`));
      expect(verdicts(answered)).toEqual(verdicts(simAnswered));
      expect(answered.filter((x) => !x.ok)).toEqual([]);
      // Only SCTP is left out, and only because this machine cannot send it.
      for (const x of r.lab.filter((y) => y.unsure === SCTP_UNSURE)) expect(x.protocol).toBe('SCTP');
      // And probes of physical hosts, only because the lab has no provider network yet.
      for (const x of r.lab.filter((y) => y.unsure === PROVIDER_UNSURE))
        expect([x.from, x.to].some((e) => e.startsWith('host/') || /^\d/.test(e))).toBe(true);
      // And probes through a pod's attachment that the pod's own routes keep off it (attachments.ts).
      for (const x of r.lab.filter((y) => ATTACHMENT_ROUTE_UNSURE.test(y.unsure ?? '')))
        expect([x.from, x.to].some((e) => e.includes('@') || /^\d/.test(e))).toBe(true);
    });
  }

  it('leaves at most 15% of the shipped probes unanswered, each for its stated cause', () => {
    // Runs after the scenarios above (vitest keeps the order); skipped with them under a -t filter.
    expect(excused.scenarios).toBe(shipped.length);
    const out = excused.sctp + excused.hosts + excused.routes;
    console.log(
      `lab: ${excused.probes - out}/${excused.probes} shipped probes answered with real packets; unsure: ${excused.sctp} SCTP, ${excused.hosts} physical hosts, ${excused.routes} attachment routes`,
    );
    expect(out / excused.probes).toBeLessThanOrEqual(0.15);
  });

  it('port security without the annotation: the same spoofed packets get through on lab as on sim', async () => {
    // The control of port-security.yaml: what the lab denied there, port security denied (not the spoofing).
    const yaml = readFileSync('scenarios/port-security.yaml', 'utf8').replace(
      '  annotations: { ovn.kubernetes.io/port_security: "true" }\n',
      '',
    );
    const scenario = assembleScenario(readScenarioText('port-security.yaml', yaml), 'unguarded');
    const sim = await runScenario(scenario, { world: new SimWorld() });
    const world = await LabWorld.start();
    try {
      const lab = await runScenario(scenario, { world });
      expect(verdicts(lab.results)).toEqual(verdicts(sim.results));
      expect(lab.results.filter((x) => x.from === 'default/guarded').map((x) => x.allowed)).toEqual(
        Array(6).fill(true),
      );
    } finally {
      await world.close();
    }
  });
});

const STEPS = `
apiVersion: v1
kind: Pod
metadata: { name: a, namespace: default }
spec: { containers: [{ name: c, image: x }] }
---
apiVersion: v1
kind: Pod
metadata: { name: b, namespace: default, annotations: { ovn.kubernetes.io/ip_address: 10.16.0.50 } }
spec: { containers: [{ name: c, image: x }] }
---
apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: { name: steps }
spec:
  cluster: { nodes: 1 }
  expect: [{ from: default/a, to: default/b, protocol: TCP, port: 80, allowed: true }]
  steps:
    - delete: [{ kind: Pod, namespace: default, name: b }]
      apply:
        - apiVersion: v1
          kind: Pod
          metadata: { name: c, namespace: default, annotations: { ovn.kubernetes.io/ip_address: 10.16.0.50 } }
          spec: { containers: [{ name: c, image: x }] }
      expect:
        - { from: default/a, to: default/c, protocol: TCP, port: 80, allowed: true }
        - { from: default/c, to: default/a, protocol: UDP, port: 53, allowed: true }
`;

describe.skipIf(!labAvailable('lab steps'))('pods a step deletes or adds', () => {
  // c takes b's address with another MAC: a's kernel learned b's MAC for it in step 0, and every probe is a
  // new client (answer.ts forgets learned neighbours), as on the other worlds.
  it('a deleted pod gets CNI DEL (namespace and port gone), a new one ADD, on its address; probes as on sim', async () => {
    const scenario = assembleScenario(readScenarioText('steps.yaml', STEPS), 'steps');
    const sim = await runScenario(scenario, { world: new SimWorld() });
    const world = await LabWorld.start();
    try {
      const lab = await runScenario(scenario, { world });
      expect(verdicts(lab.results)).toEqual(verdicts(sim.results));
      expect(lab.results.filter((x) => !x.ok)).toEqual([]);
      const ports = world.chassis.vswitch.cache
        .rows('Interface')
        .map((i) => i.external_ids['iface-id'])
        .filter((id) => id !== undefined && !id.startsWith('node-'));
      expect(ports.sort()).toEqual(['a.default', 'c.default']);
      // The host, the node and its outside hosts, and two pods: b's namespace went with its DEL.
      expect(world.netns).toHaveLength(5);
    } finally {
      await world.close();
    }
  });
});

const V6_OUTSIDE = `
apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: { name: v6-outside }
spec:
  cluster: { defaultSubnet: "10.16.0.0/16,fd00:10:16::/64", joinSubnet: "100.64.0.0/16,fd00:100:64::/112", nodes: 1 }
  expect:
    - { from: default/a, to: 2001:db8::7, protocol: TCP, port: 443, allowed: true }
    - { from: default/a, to: 2001:db8::7, protocol: ICMP, allowed: true }
    - { from: 2001:db8::9, to: default/a, protocol: TCP, port: 80, allowed: true }
    - { from: default/a, to: 203.0.113.7, protocol: UDP, port: 53, allowed: true }
---
apiVersion: v1
kind: Pod
metadata: { name: a, namespace: default }
spec: { containers: [{ name: c, image: x }] }
`;

describe.skipIf(!labAvailable('lab outside v6'))('outside hosts over IPv6', () => {
  // The node's link to its outside hosts has IPv6 too, and no namespace of the run does duplicate address
  // detection (a tentative link-local address left the node's neighbour solicitations unanswered).
  it('a dual-stack cluster reaches an outside IPv6 host and is reached from one, as on sim', async () => {
    const scenario = assembleScenario(readScenarioText('v6.yaml', V6_OUTSIDE), 'v6-outside');
    const sim = await runScenario(scenario, { world: new SimWorld() });
    const world = await LabWorld.start();
    try {
      const lab = await runScenario(scenario, { world });
      expect(verdicts(lab.results)).toEqual(verdicts(sim.results));
      expect(lab.results.filter((x) => !x.ok)).toEqual([]);
    } finally {
      await world.close();
    }
  });
});

type How = 'exit' | 'SIGINT' | 'SIGKILL';

async function runFixture(how: How): Promise<{ runId: string; netns: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, how === 'exit' ? 'exit' : 'signal'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const line = await pollUntil(async () => (out.includes('\n') ? out.split('\n')[0] : undefined), {
    timeoutMs: 120_000,
    abort: () => (child.exitCode !== null && !out.includes('\n') ? new Error(`fixture failed: ${err}`) : undefined),
    onTimeout: () => new Error(`fixture printed nothing: ${err}`),
  });
  const seen = JSON.parse(line) as { runId: string; netns: string[] };
  if (how !== 'exit') {
    // Made, and still there while the process lives.
    expect(netnsOf(seen.runId).sort()).toEqual([...seen.netns].sort());
    child.kill(how);
  }
  await exited;
  return seen;
}

describe.skipIf(!labAvailable('lab teardown'))('nothing of a lab run outlives it', () => {
  for (const how of ['exit', 'SIGINT', 'SIGKILL'] as const) {
    it(`${how}: every namespace of the run is deleted (by the exit hooks, or the run guard after kill -9)`, async () => {
      const seen = await runFixture(how);
      // The lab's host (vswitchd's), one node and its outside hosts, one pod.
      expect(seen.netns).toHaveLength(4);
      // The kernel destroys a deleted namespace's devices (veth ends, taps) a moment later.
      const left = () => [...netnsOf(seen.runId), ...linksOf(seen.runId)];
      await pollUntil(async () => (left().length === 0 ? true : undefined), {
        timeoutMs: 10_000,
        onTimeout: () => new Error(`run ${seen.runId} left: ${left().join(', ')}`),
      });
    });
  }
});
