/**
 * `kovn daemon --node NAME`: the node agent behind the CNI plugin (Kube-OVN's
 * kube-ovn-cniserver), listening on a unix socket (node/daemon). Its pods
 * come from the cluster's API (`--kubeconfig FILE`, or `in-cluster` with the
 * pod's service account): this node's only, by a field selector on
 * `spec.nodeName`. Without it, from an in-memory cluster: `--objects FILE`
 * (YAML documents: the Pods as the controller annotated them); the lab and
 * the tests start the daemon in process over theirs (node/daemon
 * startNodeDaemon).
 */
import { readFile } from 'node:fs/promises';
import { unlinkSync } from 'node:fs';
import type { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { connectApiSource } from '../kube/cluster/api/connect.ts';
import { MemoryCluster } from '../kube/cluster/memory.ts';
import type { ClusterSource, KubeObject } from '../kube/cluster/types.ts';
import { jsonLogger, type Logger, parseListenAddress, startObserveServer } from '../kube/observe/index.ts';
import { realClock } from '../kube/runtime/clock.ts';
import { DEFAULT_DAEMON_SOCKET } from '../node/cni/protocol.ts';
import {
  DEFAULT_SERVICE_CIDR,
  daemonRequestObserver,
  type NodeSetupConfig,
  startNodeDaemon,
} from '../node/daemon/index.ts';
import type { Netlink } from '../node/netlink/types.ts';
import { DATAPATH_PROFILES, parseProfile } from '../node/setup/index.ts';
import { wholeNumber } from './options.ts';

/** The local conf.db as Debian's openvswitch-switch runs it. */
export const DEFAULT_OVS_DB = 'unix:/var/run/openvswitch/db.sock';

interface DaemonFlags {
  node: string;
  socket: string;
  ovsDb: string;
  objects?: string;
  kubeconfig?: string;
  bridge: string;
  mtu: number;
  annotationTimeout: number;
  wait: 'installed' | 'applied' | 'none';
  profile?: string;
  ovnRemote?: string;
  encapIp?: string;
  encapType: string;
  systemId?: string;
  serviceCidr: string;
  nodeTimeout: number;
  metricsAddr?: string;
}

/** The objects of a YAML (or JSON) file into a fresh in-memory cluster. */
export async function clusterFromFile(path: string): Promise<MemoryCluster> {
  const cluster = new MemoryCluster({ now: () => Date.now() });
  const docs = parseAllDocuments(await readFile(path, 'utf8'));
  for (const [i, doc] of docs.entries()) {
    if (doc.errors.length > 0) throw new Error(`${path}: document ${i + 1}: ${doc.errors[0]?.message}`);
    const obj = doc.toJS() as KubeObject | null;
    if (obj === null) continue;
    if (typeof obj.kind !== 'string' || typeof obj.metadata?.name !== 'string')
      throw new Error(`${path}: document ${i + 1}: not a Kubernetes object (kind and metadata.name)`);
    await cluster.create(obj);
  }
  return cluster;
}

/** The node set-up the flags ask for: with --ovn-remote (and then --encap-ip), else none. */
export function setupOf(flags: DaemonFlags): NodeSetupConfig | undefined {
  if (flags.ovnRemote === undefined) {
    if (flags.encapIp !== undefined) throw new Error('--encap-ip: needs --ovn-remote (the node set-up)');
    return undefined;
  }
  if (flags.encapIp === undefined)
    throw new Error('--ovn-remote: needs --encap-ip, the address other chassis tunnel to');
  return {
    ovnRemote: flags.ovnRemote,
    encapIp: flags.encapIp,
    encapType: flags.encapType,
    systemId: flags.systemId ?? flags.node,
    serviceCidrs: flags.serviceCidr.split(',').map((c) => c.trim()),
    nodeTimeoutMs: flags.nodeTimeout,
  };
}

/**
 * /metrics (cni_op_latency_seconds and the process's), /healthz and /readyz
 * (ready once the node set-up is done) on `addr`.
 */
async function observeDaemon(node: string, addr: string, logger: Logger) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let setup: 'pending' | 'done' | 'failed' = 'pending';
  const server = await startObserveServer({
    registry,
    ...parseListenAddress(addr),
    healthz: () => (setup === 'failed' ? 'the node set-up failed' : undefined),
    readyz: () => (setup === 'done' ? undefined : `the node set-up is ${setup}`),
  });
  logger.info('serving metrics', { address: server.address });
  return {
    onRequest: daemonRequestObserver({ registry, node, log: logger }),
    started: (done: Promise<void>) =>
      done.then(
        () => void (setup = 'done'),
        () => void (setup = 'failed'),
      ),
  };
}

/** The API at --kubeconfig, else the in-memory cluster of --objects (or an empty one). */
async function clusterOf(flags: DaemonFlags, log: (line: string) => void): Promise<ClusterSource> {
  if (flags.kubeconfig !== undefined) {
    if (flags.objects !== undefined) throw new Error('--objects: not with --kubeconfig (the pods come from the API)');
    return connectApiSource({
      kubeconfig: flags.kubeconfig,
      clock: realClock,
      random: Math.random,
      component: 'kube-ovn-cni',
      onRetry: (kind, err, ms) => log(`watch ${kind}: ${(err as Error).message}; again in ${ms} ms`),
    });
  }
  return flags.objects === undefined ? new MemoryCluster() : clusterFromFile(flags.objects);
}

async function runDaemon(flags: DaemonFlags, netlink: Netlink): Promise<void> {
  const setup = setupOf(flags);
  const profile = flags.profile === undefined ? undefined : parseProfile(flags.profile, '--profile');
  if (profile !== undefined && !profile.ok) throw new Error(`--profile: ${profile.issue.message}`);
  const logger = jsonLogger({ write: (l) => process.stderr.write(l), now: Date.now, component: 'daemon' }).with({
    node: flags.node,
  });
  const log = (line: string) => logger.info(line);
  const cluster = await clusterOf(flags, (line) => logger.warn(line));
  const observe =
    flags.metricsAddr === undefined ? undefined : await observeDaemon(flags.node, flags.metricsAddr, logger);
  const d = await startNodeDaemon({
    ...(observe ? { onRequest: observe.onRequest } : {}),
    node: flags.node,
    cluster,
    podsOfNodeOnly: flags.kubeconfig !== undefined,
    netlink,
    ovsRemote: flags.ovsDb,
    socket: flags.socket,
    clock: realClock,
    bridge: flags.bridge,
    mtu: flags.mtu,
    annotationTimeoutMs: flags.annotationTimeout,
    wait: flags.wait,
    ...(profile?.ok ? { profile: profile.value } : {}),
    ...(setup === undefined ? {} : { setup }),
    log,
  });
  // A signal ends the process at once (cli/lifecycle.ts): the socket file goes in the exit event.
  process.on('exit', () => {
    try {
      unlinkSync(flags.socket);
    } catch {
      // already gone
    }
  });
  observe?.started(d.setup);
  for (const a of d.swept)
    logger.info('swept', { object: { kind: 'Pod', namespace: a.namespace, name: a.pod }, hostNic: a.hostNic });
  log(`node ${flags.node}: listening on ${flags.socket}`);
  // A set-up that fails ends the daemon (Kube-OVN's cniserver exits too): its supervisor starts it again.
  try {
    await d.setup;
  } catch (e) {
    await d.close();
    // The rtnetlink socket would keep the process alive.
    (netlink as Partial<{ close(): void }>).close?.();
    throw e;
  }
  if (setup !== undefined) log(`node ${flags.node}: set up`);
  await new Promise<never>(() => {});
}

/**
 * @example registerDaemon(program, async () => new RtNetlink());
 */
export function registerDaemon(program: Command, netlink: () => Promise<Netlink>): void {
  program
    .command('daemon')
    .description(
      "the node agent behind the CNI plugin: wires pods into br-int from their annotations. It reads this node's " +
        'pods from the API (--kubeconfig FILE, or in-cluster), else from an in-memory cluster (--objects FILE)',
    )
    .requiredOption('--node <name>', "this node's name")
    .option('--socket <path>', 'the unix socket the plugin calls', DEFAULT_DAEMON_SOCKET)
    .option('--ovs-db <remote>', 'the local Open_vSwitch database', DEFAULT_OVS_DB)
    .option('--kubeconfig <file>', "the cluster's API: a kubeconfig file, or in-cluster (the service account)")
    .option('--objects <file>', 'YAML documents (Pods with their annotations) loaded into the in-memory cluster')
    .option('--bridge <name>', 'the integration bridge', 'br-int')
    .option('--mtu <n>', 'pod interface MTU', wholeNumber('--mtu', 68, 65535), 1400)
    .option(
      '--annotation-timeout <ms>',
      'how long ADD waits for allocated/routed',
      wholeNumber('--annotation-timeout', 1),
      20_000,
    )
    .option('--ovn-remote <remote>', 'the node set-up: the SB ovn-controller connects to (without it, no set-up)')
    .option('--encap-ip <ip>', 'the node set-up: the address other chassis tunnel to (ovn-encap-ip)')
    .option('--encap-type <type>', 'the node set-up: ovn-encap-type (Kube-OVN --network-type)', 'geneve')
    .option('--system-id <id>', 'the node set-up: the chassis name (default: the node name)')
    .option(
      '--service-cidr <cidrs>',
      'the node set-up: the service CIDRs routed via ovn0, comma separated',
      DEFAULT_SERVICE_CIDR,
    )
    .option(
      '--node-timeout <ms>',
      "the node set-up: how long to wait for the Node's join-port annotations",
      wholeNumber('--node-timeout', 1),
      60_000,
    )
    .option(
      '--metrics-addr <host:port>',
      '/metrics, /healthz and /readyz (Kube-OVN serves them on :10665); default none',
    )
    .option('--profile <name>', `the datapath profile (${DATAPATH_PROFILES.join(', ')}); default: read from conf.db`)
    .option(
      '--wait <what>',
      'what ADD waits for after the port: installed (ovn-controller), applied (vswitchd), none',
      'installed',
    )
    .action(async (flags: DaemonFlags) => {
      if (!['installed', 'applied', 'none'].includes(flags.wait))
        throw new Error(`--wait takes installed, applied or none, got ${JSON.stringify(flags.wait)}`);
      await runDaemon(flags, await netlink());
    });
}
