/**
 * The daemon's test world: a real ovsdb-server on the Open_vSwitch schema
 * (no vswitchd: nothing applies the rows, ovs-vsctl reads them back;
 * startWorld starts it), br-int in it, an in-memory
 * cluster, a fake Netlink and a simulated clock for the annotation wait.
 */
import {
  VSWITCH_SCHEMA,
  makeTempDir,
  removeTempDir,
  runTool,
  startOvsdbServer,
} from '../../../backends/ovn/control-plane/index.ts';
import { encodePodNetwork, type PodNetwork } from '../../../kube/annotations.ts';
import { MemoryCluster } from '../../../kube/cluster/memory.ts';
import type { KubeObject } from '../../../kube/cluster/types.ts';
import { SimClock } from '../../../kube/runtime/clock.ts';
import type { DaemonRequest } from '../../cni/protocol.ts';
import { Vswitch } from '../../ovs/index.ts';
import { FakeNetlink } from './fake-netlink.ts';

export interface World {
  readonly dir: string;
  /** `unix:<conf.db socket>`. */
  readonly remote: string;
  readonly vs: Vswitch;
  readonly cluster: MemoryCluster;
  readonly clock: SimClock;
  readonly netlink: FakeNetlink;
  vsctl(...args: string[]): Promise<string>;
  close(): Promise<void>;
}

/**
 * The world over an Open_vSwitch database already running (startWorld's,
 * or a test's own), with br-int made.
 */
export async function makeWorld(db: {
  readonly dir: string;
  readonly remote: string;
  vsctl(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}): Promise<World> {
  await db.vsctl('init');
  const vs = await Vswitch.open({ remote: db.remote });
  await vs.ensureBridge({ name: 'br-int', failMode: 'secure' });
  return {
    dir: db.dir,
    remote: db.remote,
    vs,
    cluster: new MemoryCluster(),
    clock: new SimClock(),
    netlink: new FakeNetlink(),
    vsctl: db.vsctl,
    async close() {
      vs.close();
      await db.stop();
    },
  };
}

/** A pod's network as the controller would write it: 10.16.0.<n>/16 on ovn-default. */
export function network(n: number, routed = true): PodNetwork {
  return {
    ips: [`10.16.0.${n}`],
    mac: `0a:58:0a:10:00:${n.toString(16).padStart(2, '0')}`,
    cidrs: ['10.16.0.0/16'],
    gateways: ['10.16.0.1'],
    logicalSwitch: 'ovn-default',
    logicalRouter: 'ovn-cluster',
    podNicType: 'veth-pair',
    routed,
  };
}

export function pod(name: string, annotations: Record<string, string> = {}, namespace = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, annotations }, spec: { nodeName: 'node1' } };
}

export const annotated = (name: string, n: number, extra: Record<string, string> = {}) =>
  pod(name, { ...encodePodNetwork(network(n)), ...extra });

/** A request as the plugin sends it for the pod `name` in `default`, container `c-<name>`. */
export function request(
  command: DaemonRequest['command'],
  name: string,
  more: Partial<DaemonRequest> = {},
): DaemonRequest {
  return {
    command,
    cniVersion: '1.0.0',
    network: 'kovn',
    containerId: `c-${name}`,
    netns: `/run/netns/t-${name}`,
    ifName: 'eth0',
    podName: name,
    podNamespace: 'default',
    provider: 'ovn',
    ...more,
  };
}

/**
 * A bare ovsdb-server on the vswitch schema in a temp dir, and the daemon's world over it.
 *
 * @example const w = await startWorld('daemon'); ...; await w.close();
 */
export async function startWorld(name: string): Promise<World> {
  const dir = await makeTempDir(name);
  const server = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
  const vsctl = async (...args: string[]) =>
    (await runTool('ovs-vsctl', [`--db=${server.remote}`, '--no-wait', '--timeout=10', ...args])).stdout.trim();
  return makeWorld({
    dir,
    remote: server.remote,
    vsctl,
    async stop() {
      await server.stop();
      await removeTempDir(dir);
    },
  });
}
