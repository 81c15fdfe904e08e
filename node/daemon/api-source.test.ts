/**
 * The daemon reading its pods from the API (`kovn daemon --kubeconfig`):
 * through the API source, against kovn's API front over HTTPS, only the
 * pods of its node (a field selector on spec.nodeName, applied by the
 * server): a pod of this node is wired, one of another node is not seen.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { createApiDescription } from '../../kube/apiserver/describe/index.ts';
import {
  type ApiServer,
  renderKubeconfig,
  selfSignedCertificate,
  startApiServer,
} from '../../kube/apiserver/http/index.ts';
import { connectApiSource } from '../../kube/cluster/api/connect.ts';
import type { ApiClusterSource } from '../../kube/cluster/api/source.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { startNodeDaemon } from './daemon.ts';
import { call } from './testing/client.ts';
import { annotated, request, startWorld, type World } from './testing/world.ts';

describe.skipIf(!requireOvn('node/daemon over the API'))('node daemon over the API source', () => {
  let w: World;
  let api: ApiServer;
  let source: ApiClusterSource;

  beforeAll(async () => {
    w = await startWorld('daemonapi');
    const description = await createApiDescription(w.cluster, { crdFiles: [], now: () => Date.now() });
    const tls = await selfSignedCertificate();
    api = await startApiServer({
      cluster: w.cluster,
      description,
      clock: realClock,
      random: () => 0.5,
      token: 't',
      tls,
    });
    const kubeconfig = join(w.dir, 'k.yaml');
    writeFileSync(kubeconfig, renderKubeconfig({ server: api.url, caCert: tls.cert, token: 't' }));
    source = await connectApiSource({ kubeconfig, clock: realClock, random: Math.random });
  });
  afterAll(async () => {
    source?.close();
    await api?.close();
    await w?.close();
  });

  it("wires a pod of its node and does not see another node's pod", async () => {
    await w.cluster.create(annotated('mine', 21));
    const theirs = annotated('theirs', 22);
    await w.cluster.create({ ...theirs, spec: { nodeName: 'node2' } });
    const sock = join(w.dir, 'api-daemon.sock');
    const d = await startNodeDaemon({
      node: 'node1',
      cluster: source,
      podsOfNodeOnly: true,
      netlink: w.netlink,
      ovsRemote: w.remote,
      socket: sock,
      clock: realClock,
      wait: 'none',
      annotationTimeoutMs: 300,
      netnsExists: async (p) => w.netlink.namespaces.has(p),
    });
    try {
      for (const name of ['mine', 'theirs']) w.netlink.namespaces.add(`/run/netns/t-${name}`);
      expect(await call(sock, request('ADD', 'mine'))).toMatchObject({ ok: true });
      const refused = await call(sock, request('ADD', 'theirs'));
      expect(refused).toMatchObject({ ok: false });
      expect(JSON.stringify(refused)).toContain('theirs');
      expect(await w.vsctl('list-ports', 'br-int')).toBe('c-mine_h');
    } finally {
      await d.close();
    }
  });
});
