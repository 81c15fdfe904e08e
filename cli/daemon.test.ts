/**
 * `kovn daemon` as a process: pods from --objects, a real namespace wired by
 * RtNetlink through its socket into a bare Open_vSwitch database (`--wait
 * none`: no vswitchd), and its socket file gone once a signal ends it.
 */
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import {
  VSWITCH_SCHEMA,
  makeTempDir,
  removeTempDir,
  requireOvn,
  runTool,
  startOvsdbServer,
  type OvsdbServer,
} from '../backends/ovn/control-plane/index.ts';
import { encodePodNetwork } from '../kube/annotations.ts';
import { NetnsFixture, ip, requireNetns } from '../node/netlink/testing.ts';
import { call } from '../node/daemon/testing/client.ts';
import { network, pod } from '../node/daemon/testing/world.ts';
import { parsePrometheusText, sampleValue } from '../kube/observe/testing/prom-text.ts';
import { createApiDescription } from '../kube/apiserver/describe/index.ts';
import { renderKubeconfig, selfSignedCertificate, startApiServer } from '../kube/apiserver/http/index.ts';
import { MemoryCluster } from '../kube/cluster/memory.ts';
import { realClock } from '../kube/runtime/clock.ts';
import { startKovn } from './testing/index.ts';

const enabled = requireOvn('kovn daemon') && requireNetns('kovn daemon');

describe.skipIf(!enabled)('kovn daemon', () => {
  let dir: string;
  let server: OvsdbServer;
  let fx: NetnsFixture;
  const vsctl = async (...args: string[]) =>
    (await runTool('ovs-vsctl', [`--db=${server.remote}`, '--no-wait', '--timeout=10', ...args])).stdout.trim();

  beforeAll(async () => {
    dir = await makeTempDir('clidaemon');
    server = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
    await vsctl('init');
    await vsctl('add-br', 'br-int');
    fx = await NetnsFixture.create();
  });
  afterAll(async () => {
    await fx?.cleanup();
    await server?.stop();
    if (dir !== undefined) await removeTempDir(dir);
  });

  it('serves the pods of --objects on its socket, wires a real namespace, and removes its socket when signalled', async () => {
    const ns = await fx.netns();
    const id = fx.linkName();
    const objects = join(dir, 'pods.yaml');
    await writeFile(objects, stringify(pod('web', encodePodNetwork(network(7)))));
    const sock = join(dir, 'kovn.sock');
    const args = [
      'daemon',
      '--node',
      'n1',
      '--socket',
      sock,
      '--ovs-db',
      server.remote,
      '--objects',
      objects,
      '--wait',
      'none',
      '--metrics-addr',
      '127.0.0.1:0',
    ];
    const k = startKovn(args, { tmp: dir });
    try {
      await vi.waitFor(() => expect(k.stderr()).toMatch(/listening on/), { timeout: 30_000 });
      expect((await stat(sock)).mode & 0o777).toBe(0o600);
      const base = { cniVersion: '1.0.0', network: 'kovn', containerId: id, netns: ns.path, ifName: 'eth0' };
      const req = { ...base, podName: 'web', podNamespace: 'default', provider: 'ovn' };
      expect(await call(sock, { command: 'ADD', ...req })).toMatchObject({
        ok: true,
        result: { ips: [{ address: '10.16.0.7/16', gateway: '10.16.0.1' }] },
      });
      expect(await ip('-n', ns.name, '-br', 'addr', 'show', 'dev', 'eth0')).toMatch(/10\.16\.0\.7\/16/);
      expect(await vsctl('list-ports', 'br-int')).toBe(`${id}_h`);
      expect(await call(sock, { command: 'DEL', ...req })).toEqual({ ok: true });
      expect(await vsctl('list-ports', 'br-int')).toBe('');
      // Its stderr is JSON lines; its metrics answer where it said, parsed as Prometheus text.
      const lines = k
        .stderr()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.every((l) => l.component === 'daemon' && l.node === 'n1')).toBe(true);
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'cni request', command: 'ADD', kind: 'Pod', namespace: 'default', name: 'web' }),
      );
      const addr = lines.find((l) => l.msg === 'serving metrics')?.address;
      const f = parsePrometheusText(await (await fetch(`http://${addr}/metrics`)).text());
      for (const method of ['ADD', 'DEL'])
        expect(sampleValue(f, 'cni_op_latency_seconds_count', { node_name: 'n1', method, status_code: '0' })).toBe(1);
      expect((await fetch(`http://${addr}/readyz`)).status).toBe(200);
    } finally {
      k.child.kill('SIGTERM');
      await k.exited;
    }
    await expect(stat(sock)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('--kubeconfig: reads the pods of its node from the API (a pod of another node is not served)', async () => {
    const cluster = new MemoryCluster();
    await cluster.create({ ...pod('api-web', encodePodNetwork(network(9))), spec: { nodeName: 'n1' } });
    await cluster.create({ ...pod('api-other', encodePodNetwork(network(10))), spec: { nodeName: 'n2' } });
    const tls = await selfSignedCertificate();
    const description = await createApiDescription(cluster, { crdFiles: [], now: () => Date.now() });
    const api = await startApiServer({ cluster, description, clock: realClock, random: () => 0.5, token: 't', tls });
    const kubeconfig = join(dir, 'api.yaml');
    await writeFile(kubeconfig, renderKubeconfig({ server: api.url, caCert: tls.cert, token: 't' }));
    const ns = await fx.netns();
    const id = fx.linkName();
    const sock = join(dir, 'kovn-api.sock');
    const k = startKovn(
      [
        ...['daemon', '--node', 'n1', '--socket', sock, '--ovs-db', server.remote, '--kubeconfig', kubeconfig],
        ...['--wait', 'none', '--annotation-timeout', '500', '--metrics-addr', '127.0.0.1:0'],
      ],
      { tmp: dir },
    );
    try {
      await vi.waitFor(() => expect(k.stderr()).toMatch(/listening on/), { timeout: 30_000 });
      const base = { cniVersion: '1.0.0', network: 'kovn', containerId: id, netns: ns.path, ifName: 'eth0' };
      const req = (podName: string) => ({
        command: 'ADD' as const,
        ...base,
        podName,
        podNamespace: 'default',
        provider: 'ovn',
      });
      expect(await call(sock, req('api-web'))).toMatchObject({
        ok: true,
        result: { ips: [{ address: '10.16.0.9/16' }] },
      });
      expect(await call(sock, req('api-other'))).toMatchObject({ ok: false });
      expect(await call(sock, { ...req('api-web'), command: 'DEL' })).toEqual({ ok: true });
    } finally {
      k.child.kill('SIGTERM');
      await k.exited;
      await api.close();
    }
  });

  it('refuses a profile it does not know, naming the profiles', async () => {
    const k = startKovn(['daemon', '--node', 'n1', '--socket', join(dir, 'x.sock'), '--profile', 'turbo'], {
      tmp: dir,
    });
    expect((await k.exited).code).toBe(1);
    await k.closed;
    expect(k.stderr()).toMatch(/--profile: "turbo" is not a datapath profile \(system, netdev, dpdk, hw-offload\)/);
  });

  it('--help says where pods come from: the API, else an in-memory cluster', async () => {
    const k = startKovn(['daemon', '--help'], { tmp: dir });
    await k.closed;
    expect(k.stdout().replace(/\s+/g, ' ')).toMatch(
      /pods from the API \(--kubeconfig FILE, or in-cluster\), else from an in-memory cluster/,
    );
  });
});
