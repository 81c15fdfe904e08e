import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { realClock } from '../../runtime/clock.ts';
import { ClusterError, type WatchEvent } from '../types.ts';
import { connectApiSource } from './connect.ts';

// A real HTTPS server with a self-signed certificate, answering as the API does, and kubeconfigs for it.
let dir: string;
let server: https.Server;
let port: number;
const held: (() => void)[] = [];
const seen: { method: string; url: string; auth: string; type: string; body: string }[] = [];

function cert(name: string): { key: string; cert: string } {
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
      ...['-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
      ...['-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`)],
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(join(dir, `${name}.key`), 'utf8'), cert: readFileSync(join(dir, `${name}.crt`), 'utf8') };
}

function kubeconfig(file: string, ca: string, token: string): string {
  const path = join(dir, file);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'sim',
          cluster: {
            server: `https://127.0.0.1:${port}`,
            'certificate-authority-data': Buffer.from(ca).toString('base64'),
          },
        },
      ],
      users: [{ name: 'u', user: { token } }],
      contexts: [{ name: 'c', context: { cluster: 'sim', user: 'u' } }],
      'current-context': 'c',
    }),
  );
  return path;
}

let good: string;
let wrongCa: string;
let wrongToken: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kovn-api-transport-'));
  const tls = cert('server');
  const other = cert('other');
  server = https.createServer(tls, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        auth: req.headers.authorization ?? '',
        type: req.headers['content-type'] ?? '',
        body,
      });
      const json = (code: number, o: unknown) => {
        res.writeHead(code, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(o));
      };
      if (req.url?.includes('/pods/slow-')) {
        // Held until the test lets them go: requests in flight that take all the connections.
        held.push(() => json(200, { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'slow' } }));
        return;
      }
      if (req.url?.includes('/leases/')) return json(200, { kind: 'Lease', metadata: { name: 'kovn' } });
      if (req.headers.authorization !== 'Bearer s3cret')
        return json(401, { kind: 'Status', code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
      const url = new URL(req.url ?? '', 'https://x');
      if (url.searchParams.get('watch') === '1') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const added = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'web', resourceVersion: '11' } } });
        // One event split across two chunks, then a bookmark and an event in one.
        res.write(added.slice(0, 20));
        setTimeout(() => {
          res.write(`${added.slice(20)}\n`);
          res.write(
            `${JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '15' } } })}\n` +
              `${JSON.stringify({ type: 'DELETED', object: { metadata: { name: 'web', resourceVersion: '16' } } })}\n`,
          );
        }, 20);
        return;
      }
      if (req.method === 'PATCH') return json(200, { kind: 'Pod', apiVersion: 'v1', ...JSON.parse(body) });
      return json(200, { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'web', namespace: 'shop' } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  good = kubeconfig('good.yaml', tls.cert, 's3cret');
  wrongCa = kubeconfig('wrong-ca.yaml', other.cert, 's3cret');
  wrongToken = kubeconfig('wrong-token.yaml', tls.cert, 'nope');
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const connect = (kubeconfig: string) => connectApiSource({ kubeconfig, clock: realClock, random: () => 0 });

describe('the API source over HTTPS, configured from a kubeconfig by client-node', () => {
  it('sends the token, verifies the server against the CA, and patches as a merge patch', async () => {
    const s = await connect(good);
    expect((await s.get({ kind: 'Pod', namespace: 'shop', name: 'web' }))?.metadata.name).toBe('web');
    await s.patch({ kind: 'Pod', namespace: 'shop', name: 'web' }, { metadata: { labels: { a: 'b' } } });
    s.close();
    const patch = seen.find((r) => r.method === 'PATCH');
    expect(patch).toMatchObject({
      url: '/api/v1/namespaces/shop/pods/web',
      auth: 'Bearer s3cret',
      type: 'application/merge-patch+json',
      body: '{"metadata":{"labels":{"a":"b"}}}',
    });
  });

  it('a server its CA did not sign is refused (no answer: ServiceUnavailable); a bad token is Forbidden', async () => {
    const s = await connect(wrongCa);
    const err = await s.get({ kind: 'Node', name: 'n1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClusterError);
    expect((err as ClusterError).reason).toBe('ServiceUnavailable');
    expect((err as ClusterError).message).toMatch(/certificate|self.signed/i);
    s.close();
    const t = await connect(wrongToken);
    const refused = await t.get({ kind: 'Node', name: 'n1' }).catch((e: unknown) => e);
    expect((refused as ClusterError).reason).toBe('Forbidden');
    t.close();
  });

  it('a Lease request is not queued behind requests that hold every connection (leader election keeps its deadline)', async () => {
    const s = await connectApiSource({ kubeconfig: good, clock: realClock, random: () => 0, maxSockets: 2 });
    const slow = [1, 2, 3, 4].map((i) => s.get({ kind: 'Pod', namespace: 'shop', name: `slow-${i}` }));
    await vi.waitFor(() => expect(held.length).toBe(2));
    const lease = await s.get({ kind: 'Lease', namespace: 'kube-system', name: 'kovn' });
    expect(lease?.metadata.name).toBe('kovn');
    // Answered while both connections were still taken and two requests waited for one.
    expect(held.length).toBe(2);
    while (held.length > 0) held.shift()!();
    await vi.waitFor(() => expect(held.length).toBe(2));
    while (held.length > 0) held.shift()!();
    expect((await Promise.all(slow)).length).toBe(4);
    s.close();
  });

  it('reads a watch stream line by line across chunks, keeping the bookmark’s version', async () => {
    const s = await connect(good);
    const events: WatchEvent[] = [];
    const done = new Promise<void>((resolve) => {
      const w = s.watch('Pod', '10', (e) => {
        events.push(e);
        if (e.type === 'DELETED') {
          w.stop();
          resolve();
        }
      });
    });
    await done;
    s.close();
    expect(events.map((e) => [e.type, e.object.kind, e.object.metadata.resourceVersion])).toEqual([
      ['ADDED', 'Pod', '11'],
      ['DELETED', 'Pod', '16'],
    ]);
    expect(seen.some((r) => r.url.startsWith('/api/v1/pods?watch=1&resourceVersion=10&allowWatchBookmarks=true'))).toBe(
      true,
    );
  });
});
