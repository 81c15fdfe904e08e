import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  VSWITCH_SCHEMA,
  makeTempDir,
  removeTempDir,
  requireOvn,
  runTool,
  startOvsdbServer,
} from '../../backends/ovn/control-plane/index.ts';
import { encodePodNetwork } from '../../kube/annotations.ts';
import { ensurePluginBuilt } from '../bundle/index.ts';
import { runExecutable } from '../cni/testing.ts';
import { startNodeDaemon, type NodeDaemon } from './daemon.ts';
import { annotated, makeWorld, network, pod, type World } from './testing/world.ts';

interface Run {
  readonly code: number | null;
  readonly out: unknown;
}

async function runPlugin(plugin: string, env: Record<string, string>, config: object): Promise<Run> {
  const r = await runExecutable([plugin], env, JSON.stringify(config));
  return { code: r.status, out: r.stdout.trim() ? JSON.parse(r.stdout) : undefined };
}

describe.skipIf(!requireOvn('node/daemon plugin'))('the bundled CNI plugin against the daemon', () => {
  let w: World;
  let d: NodeDaemon;
  let plugin: string;
  let sock: string;
  const config = (extra: object = {}) => ({
    cniVersion: '1.0.0',
    name: 'kovn',
    type: 'kovn',
    server_socket: sock,
    ...extra,
  });
  const env = (command: string, name: string) => ({
    CNI_COMMAND: command,
    CNI_CONTAINERID: `c-${name}`,
    CNI_NETNS: `/run/netns/t-${name}`,
    CNI_IFNAME: 'eth0',
    CNI_PATH: '/opt/cni/bin',
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${name};K8S_POD_INFRA_CONTAINER_ID=c-${name}`,
  });

  beforeAll(async () => {
    plugin = await ensurePluginBuilt();
    const dir = await makeTempDir('dmplugin');
    const server = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
    const vsctl = async (...args: string[]) =>
      (await runTool('ovs-vsctl', [`--db=${server.remote}`, '--no-wait', '--timeout=10', ...args])).stdout.trim();
    w = await makeWorld({
      dir,
      remote: server.remote,
      vsctl,
      async stop() {
        await server.stop();
        await removeTempDir(dir);
      },
    });
    sock = join(dir, 'daemon.sock');
    d = await startNodeDaemon({
      node: 'node1',
      cluster: w.cluster,
      netlink: w.netlink,
      ovsRemote: w.remote,
      socket: sock,
      clock: w.clock,
      wait: 'none',
      netnsExists: async (p) => w.netlink.namespaces.has(p),
    });
  }, 120_000);
  afterAll(async () => {
    await d?.close();
    await w?.close();
  });

  it('ADD prints the result, CHECK with it as prevResult passes, DEL twice succeeds', async () => {
    await w.cluster.create(annotated('p1', 50));
    w.netlink.namespaces.add('/run/netns/t-p1');
    const add = await runPlugin(plugin, env('ADD', 'p1'), config());
    expect(add).toMatchObject({
      code: 0,
      out: {
        cniVersion: '1.0.0',
        interfaces: [{ name: 'eth0', mac: '0a:58:0a:10:00:32', sandbox: '/run/netns/t-p1' }],
        ips: [{ address: '10.16.0.50/16', gateway: '10.16.0.1', interface: 0 }],
      },
    });
    expect(await w.vsctl('list-ports', 'br-int')).toBe('c-p1_h');
    const check = await runPlugin(plugin, env('CHECK', 'p1'), config({ prevResult: add.out }));
    expect(check).toEqual({ code: 0, out: undefined });
    expect(await runPlugin(plugin, env('DEL', 'p1'), config())).toEqual({ code: 0, out: undefined });
    expect(await runPlugin(plugin, env('DEL', 'p1'), config())).toEqual({ code: 0, out: undefined });
    expect(await w.vsctl('list-ports', 'br-int')).toBe('');
    expect(w.netlink.links.size).toBe(0);
  });

  it("the daemon's errors reach the runtime in the spec's shape: a pod that never gets routed (100)", async () => {
    await w.cluster.create(pod('p2', encodePodNetwork(network(51, false))));
    w.netlink.namespaces.add('/run/netns/t-p2');
    const add = runPlugin(plugin, env('ADD', 'p2'), config());
    // The daemon's annotation wait runs on the test's clock: let the request arrive, then let the bound pass.
    await vi.waitFor(() => expect(w.clock.pending()).toBeGreaterThan(0), { timeout: 10_000 });
    w.clock.advance(20_000);
    expect(await add).toEqual({
      code: 1,
      out: {
        cniVersion: '1.0.0',
        code: 100,
        msg: 'pod default/p2: annotations not ready within 20000 ms: ovn.kubernetes.io/routed: not "true" yet',
      },
    });
    expect(w.netlink.links.size).toBe(0);
  });

  it('STATUS answers through the plugin (CNI 1.1)', async () => {
    const status = await runPlugin(
      plugin,
      { CNI_COMMAND: 'STATUS', CNI_PATH: '/opt/cni/bin' },
      config({ cniVersion: '1.1.0' }),
    );
    expect(status).toEqual({ code: 0, out: undefined });
  });
});
