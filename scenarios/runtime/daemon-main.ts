/**
 * The node daemon of the real-runtime world, in a process of its own inside
 * the world's host namespace (`ip netns exec <host> node --import tsx
 * daemon-main.ts`), where ovs-vswitchd runs: the veths it makes through
 * rtnetlink have their host end there, and go with that namespace. Its
 * cluster source is an in-memory cluster the world feeds with its pods
 * (until the daemon reads a real API server).
 *
 * argv[2]: JSON `{"node", "ovsRemote", "socket"}`. stdin: one JSON request a
 * line, `{"id", "op": "put", "object"}` or `{"id", "op": "delete",
 * "namespace", "name"}` (a Pod); stdout: `{"id", "ok", "error"?}` each, and
 * `{"id": 0, "ok": true}` once the daemon listens. It ends at EOF of stdin.
 */
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { startNodeDaemon } from '../../node/daemon/index.ts';
import { RtNetlink } from '../../node/netlink/index.ts';

type Request =
  | { readonly id: number; readonly op: 'put'; readonly object: KubeObject }
  | { readonly id: number; readonly op: 'delete'; readonly namespace: string; readonly name: string };

const { node, ovsRemote, socket } = JSON.parse(process.argv[2] ?? '{}') as {
  node: string;
  ovsRemote: string;
  socket: string;
};
const cluster = new MemoryCluster();
const netlink = new RtNetlink();
const answer = (line: object): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

async function put(object: KubeObject): Promise<void> {
  const ref = { kind: 'Pod', namespace: object.metadata.namespace ?? '', name: object.metadata.name };
  const current = await cluster.get(ref);
  const { resourceVersion: _, ...metadata } = object.metadata;
  if (current === undefined) await cluster.create({ ...object, metadata });
  else
    await cluster.update({ ...object, metadata: { ...metadata, resourceVersion: current.metadata.resourceVersion } });
}

const handle = (req: Request): Promise<unknown> =>
  req.op === 'put'
    ? put(req.object)
    : cluster.delete({ kind: 'Pod', namespace: req.namespace, name: req.name }).catch(() => {});

const daemon = await startNodeDaemon({ node, cluster, netlink, ovsRemote, socket, clock: realClock });
let buffered = '';
let chain: Promise<unknown> = Promise.resolve();
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffered += chunk;
  for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
    const req = JSON.parse(buffered.slice(0, nl)) as Request;
    buffered = buffered.slice(nl + 1);
    // In order: a pod is put before the ADD that needs it.
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
    await daemon.close().catch(() => {});
    netlink.close();
    process.exit(0);
  });
});
answer({ id: 0, ok: true });
