/**
 * A plain-HTTP server answering only what the description answers
 * (discovery, /openapi/v2), for running kubectl 1.20 against the
 * description alone: every other GET is a 404 Status, a POST is echoed back
 * as created. kubectl's client-side work (discovery, short names, schema
 * validation, `create --dry-run=client`, `api-resources`, `explain`) needs
 * nothing more. The HTTP side's own server is kube/apiserver/http/.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiDescription } from '../../types.ts';

export interface DiscoveryServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves a description on 127.0.0.1 (a free port).
 *
 * @example const s = await serveDescription(d); run(`kubectl --server ${s.url} api-resources`); await s.close();
 */
export async function serveDescription(d: ApiDescription): Promise<DiscoveryServer> {
  const server = createServer((req, res) => {
    const a = d.discovery(req.url ?? '/', req.headers.accept);
    if (a) {
      res.writeHead(a.status, { 'content-type': a.contentType ?? 'application/json' });
      res.end(a.body instanceof Uint8Array ? a.body : JSON.stringify(a.body));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST') {
        res.writeHead(201);
        res.end(Buffer.concat(chunks));
        return;
      }
      res.writeHead(404);
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
