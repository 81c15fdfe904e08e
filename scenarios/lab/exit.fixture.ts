/**
 * Run by world.test.ts in a child Node process: a lab world wires a small
 * scenario's nodes and pods, then, once its namespaces exist, prints the run
 * id, the namespaces and the processes as one JSON line and ends the way
 * argv[2] says without ever calling close(): `exit`, or (`signal`) stays
 * alive until the test sends SIGINT or SIGKILL. The exit hooks, or the run
 * guard where no JavaScript runs at death, must still delete every namespace.
 */
import { trackedPids } from '../../backends/ovn/control-plane/index.ts';
import { assembleScenario, readScenarioText } from '../load.ts';
import { runScenario } from '../run.ts';
import { LabWorld } from './world.ts';

const how = process.argv[2] ?? 'exit';
const TEXT = `
apiVersion: v1
kind: Pod
metadata: { name: a, namespace: default }
spec: { containers: [{ name: c, image: x }] }
---
apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: { name: exit }
spec:
  cluster: { nodes: 1 }
  expect: [{ from: default/a, to: 10.16.0.1, protocol: ICMP, allowed: true }]
`;
const world = await LabWorld.start();
await runScenario(assembleScenario(readScenarioText('exit.yaml', TEXT), 'exit'), {
  world,
  onConverged: async () => {
    const line = { runId: world.runId, netns: world.netns, pids: trackedPids().map((t) => t.pid) };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    if (how === 'exit') process.exit(0);
    // 'signal': stay alive until the test's signal.
    await new Promise(() => setInterval(() => undefined, 1_000));
  },
});
