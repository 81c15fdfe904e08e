/**
 * Run by world-kill.test.ts in a child Node process: a runtime world with one
 * pod wired by the plugin, then one JSON line (the run dir, the namespaces,
 * the processes) and it waits to be killed without ever calling close().
 */
import { trackedPids } from '../../backends/ovn/control-plane/index.ts';
import { ensurePluginBuilt } from '../../node/bundle/index.ts';
import { CniPods } from './cni-pods.ts';
import { RuntimeWorld } from './world.ts';

const plugin = await ensurePluginBuilt();
const world = await RuntimeWorld.start();
await world.createPod({ name: 'k' });
const pods = new CniPods({ plugin, pluginConfig: world.pluginConfig(), namespaces: world.namespaces });
const pod = await pods.add('k');
const line = {
  dir: world.dir,
  netns: world.namespaces.live,
  hostNic: pod.result.interfaces?.[0]?.name,
  pids: trackedPids().map((t) => t.pid),
};
process.stdout.write(`${JSON.stringify(line)}\n`);
await new Promise(() => setInterval(() => undefined, 1_000));
