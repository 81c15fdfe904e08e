/**
 * A front of its own for one test: served over `tls` with the stand-in
 * description and real time, a client for it (no token), closed after
 * `body` (given the client and the server) whatever happens.
 */
import type { ClusterSource } from '../../../cluster/types.ts';
import { realClock } from '../../../runtime/clock.ts';
import { type ApiServer, type ApiServerOptions, startApiServer } from '../server.ts';
import type { TlsIdentity } from '../tls.ts';
import { type TestClient, testClient } from './client.ts';
import { testDescription } from './description.ts';

/**
 * @example await withTestServer(cluster, tls, { bookmarkIntervalMs: 50 }, async (c) => { await c.call('GET', '/api'); });
 */
export async function withTestServer(
  cluster: ClusterSource,
  tls: TlsIdentity,
  opts: Partial<ApiServerOptions>,
  body: (c: TestClient, api: ApiServer) => Promise<void>,
): Promise<void> {
  const api = await startApiServer({
    cluster,
    description: testDescription(),
    clock: realClock,
    random: () => 0,
    tls,
    ...opts,
  });
  try {
    await body(testClient(api.url, tls.cert), api);
  } finally {
    await api.close();
  }
}
