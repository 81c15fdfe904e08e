/**
 * The lab's node daemons, in a process of their own inside the lab's host
 * namespace (`ip netns exec <host> node --import tsx daemon-main.ts`), so that
 * the veths the daemon makes through rtnetlink have their host end where
 * ovs-vswitchd runs, and go when that namespace is deleted. One kovn node
 * daemon (node/daemon) per scenario node, each on its own socket, all over
 * one in-memory cluster that the lab feeds with the scenario's pods.
 *
 * argv[2]: JSON `{"ovsRemote", "bridge"}`. stdin: one JSON request a line,
 * `{"id", "op": "node", ...NodeRequest}` (that node's ovn0 if asked, then its daemon),
 * `{"id", "op": "put", "object"}` (a Pod or a Subnet), `{"id", "op": "delete", "namespace", "name"}`
 * (a Pod); stdout: `{"id", "ok", "error"?}` per request, `{"id": 0, "ok": true}`
 * once ready. It ends at EOF of stdin (its owner ended, however).
 */
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { type NodeDaemon, startNodeDaemon } from '../../node/daemon/index.ts';
import { RtNetlink } from '../../node/netlink/index.ts';
import { Vswitch } from '../../node/ovs/index.ts';
import { ensureNodeNic, type NodeNicInput, planNodeNic } from '../../node/setup/index.ts';

const { ovsRemote, bridge } = JSON.parse(process.argv[2] ?? '{}') as { ovsRemote: string; bridge: string };
const cluster = new MemoryCluster();
const netlink = new RtNetlink();
const daemons: NodeDaemon[] = [];

/** A node's ovn0 (node/setup, the veth form into the node's namespace). */
export interface Ovn0Request {
  /** The Node's annotations (its join address and MAC). */
  readonly annotations: Readonly<Record<string, string>>;
  /** The node's namespace, a path. */
  readonly netns: string;
  /** The host end of ovn0's veth. */
  readonly hostIfName: string;
  readonly subnets: NodeNicInput['subnets'];
  readonly serviceCidrs: readonly string[];
}

/** A node: its ovn0 when asked for (the lab's nodes; the real-runtime world's one node has none), then its daemon. */
export interface NodeRequest {
  readonly name: string;
  readonly socket: string;
  readonly ovn0?: Ovn0Request;
}

type Request =
  | ({ readonly id: number; readonly op: 'node' } & NodeRequest)
  | { readonly id: number; readonly op: 'put'; readonly object: KubeObject }
  | { readonly id: number; readonly op: 'delete'; readonly namespace: string; readonly name: string };

/** A Pod, or a Subnet the daemons read (its MTU, its u2o gateway), created or replaced. */
async function put(object: KubeObject): Promise<void> {
  const ns = object.metadata.namespace;
  const ref = { kind: object.kind, name: object.metadata.name, ...(ns !== undefined ? { namespace: ns } : {}) };
  const current = await cluster.get(ref);
  const { resourceVersion: _, ...metadata } = object.metadata;
  if (current === undefined) await cluster.create({ ...object, metadata });
  else
    await cluster.update({ ...object, metadata: { ...metadata, resourceVersion: current.metadata.resourceVersion } });
}

/** The MTU of ovn0 and of the pods' interfaces (the daemon's default: Kube-OVN's 1400). */
const MTU = 1400;

async function addOvn0(node: string, req: Ovn0Request): Promise<void> {
  const plan = planNodeNic({
    node,
    annotations: req.annotations,
    mtu: MTU,
    subnets: req.subnets,
    serviceCidrs: req.serviceCidrs,
  });
  if (!plan.ok) throw new Error(`node ${node}: ${plan.issue.path}: ${plan.issue.message}`);
  const vs = await Vswitch.open({ remote: ovsRemote });
  try {
    await ensureNodeNic({ vs, netlink, bridge, profile: 'netdev' }, plan.value, {
      kind: 'veth',
      netns: req.netns,
      hostIfName: req.hostIfName,
    });
  } finally {
    vs.close();
  }
}

async function addNode(req: NodeRequest): Promise<void> {
  if (req.ovn0 !== undefined) await addOvn0(req.name, req.ovn0);
  const d = await startNodeDaemon({
    node: req.name,
    cluster,
    netlink,
    ovsRemote,
    socket: req.socket,
    clock: realClock,
    bridge,
    mtu: MTU,
  });
  daemons.push(d);
}

async function handle(req: Request): Promise<void> {
  if (req.op === 'node') await addNode(req);
  else if (req.op === 'put') await put(req.object);
  else await cluster.delete({ kind: 'Pod', namespace: req.namespace, name: req.name }).catch(() => {});
}

const answer = (line: object): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

let buffered = '';
let chain = Promise.resolve();
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffered += chunk;
  for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
    const req = JSON.parse(buffered.slice(0, nl)) as Request;
    buffered = buffered.slice(nl + 1);
    // In order: a pod is put before the ADD that needs it is answered.
    chain = chain.then(() =>
      handle(req).then(
        () => answer({ id: req.id, ok: true }),
        (e: unknown) => answer({ id: req.id, ok: false, error: e instanceof Error ? e.message : String(e) }),
      ),
    );
  }
});
process.stdin.on('end', () => {
  void chain.then(async () => {
    for (const d of daemons) await d.close().catch(() => {});
    netlink.close();
    process.exit(0);
  });
});
answer({ id: 0, ok: true });
