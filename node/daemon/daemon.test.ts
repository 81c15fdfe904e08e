/**
 * The daemon as the plugin meets it: the unix socket (mode, one line each
 * way, decode failures, a stale socket replaced, a live one kept), and a
 * restart that rebuilds from the Open_vSwitch database and removes what
 * belongs to pods, or namespaces, that are gone.
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  VSWITCH_SCHEMA,
  makeTempDir,
  removeTempDir,
  requireOvn,
  runTool,
  startOvsdbServer,
} from '../../backends/ovn/control-plane/index.ts';
import { Registry } from 'prom-client';
import { jsonLogger } from '../../kube/observe/log.ts';
import { parsePrometheusText, sampleValue } from '../../kube/observe/testing/prom-text.ts';
import { attachmentsOf } from './attachments.ts';
import { daemonRequestObserver } from './metrics.ts';
import { startNodeDaemon, type NodeDaemon } from './daemon.ts';
import { listenDaemon } from './server.ts';
import { call, sendLine } from './testing/client.ts';
import { annotated, request, makeWorld, type World, startWorld } from './testing/world.ts';

describe.skipIf(!requireOvn('node/daemon'))('node daemon: socket and restart', () => {
  let w: World;
  let sock: string;
  const start = (): Promise<NodeDaemon> =>
    startNodeDaemon({
      node: 'node1',
      cluster: w.cluster,
      netlink: w.netlink,
      ovsRemote: w.remote,
      socket: sock,
      clock: w.clock,
      wait: 'none',
      netnsExists: async (p) => w.netlink.namespaces.has(p),
    });

  beforeAll(async () => {
    w = await startWorld('daemonsock');
    sock = join(w.dir, 'run', 'daemon.sock');
  });
  afterAll(async () => {
    await w?.close();
  });

  it('listens with mode 0600, answers one JSON line per connection, and refuses what does not decode (6)', async () => {
    const d = await start();
    try {
      expect((await stat(sock)).mode & 0o777).toBe(0o600);
      expect(await call(sock, request('STATUS', '', { containerId: '' }))).toEqual({ ok: true });
      expect(JSON.parse(await sendLine(sock, 'not json\n'))).toMatchObject({ ok: false, error: { code: 6 } });
      expect(JSON.parse(await sendLine(sock, '{"command":"RESET"}\n'))).toEqual({
        ok: false,
        error: { code: 6, msg: 'request.command: "RESET" is not one of ADD, DEL, CHECK, STATUS, GC' },
      });
      expect(JSON.parse(await sendLine(sock, '{"command":"STATUS"'))).toMatchObject({ ok: false, error: { code: 6 } });
    } finally {
      await d.close();
    }
    await expect(stat(sock)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('times every plugin request into cni_op_latency_seconds and logs it naming the pod', async () => {
    const registry = new Registry();
    const lines: Record<string, unknown>[] = [];
    const log = jsonLogger({ write: (l) => lines.push(JSON.parse(l)), now: () => 0, component: 'daemon' });
    const d = await startNodeDaemon({
      node: 'node1',
      cluster: w.cluster,
      netlink: w.netlink,
      ovsRemote: w.remote,
      socket: sock,
      clock: w.clock,
      wait: 'none',
      onRequest: daemonRequestObserver({ registry, node: 'node1', log }),
    });
    try {
      expect(await call(sock, request('STATUS', ''))).toEqual({ ok: true });
      // CHECK of a container never attached: the daemon answers a CNI error.
      const refused = await call(sock, request('CHECK', 'ghost', { podNamespace: 'nowhere' }));
      expect(refused.ok).toBe(false);
      const code = refused.ok ? -1 : refused.error.code;
      const f = parsePrometheusText(await registry.metrics());
      const ok = { node_name: 'node1', method: 'STATUS', status_code: '0' };
      expect(sampleValue(f, 'cni_op_latency_seconds_count', ok)).toBe(1);
      const failed = { node_name: 'node1', method: 'CHECK', status_code: String(code) };
      expect(sampleValue(f, 'cni_op_latency_seconds_count', failed)).toBe(1);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          kind: 'Pod',
          namespace: 'nowhere',
          name: 'ghost',
          command: 'CHECK',
          code,
        }),
      );
    } finally {
      await d.close();
    }
  });

  it('replaces a socket left by a daemon killed with -9, and refuses one another daemon listens on', async () => {
    // A listener that dies without removing its socket file.
    const script = `require('net').createServer().listen(${JSON.stringify(sock)}, () => process.kill(process.pid, 'SIGKILL'))`;
    await promisify(execFile)(process.execPath, ['-e', script]).catch(() => {});
    expect((await stat(sock)).isSocket()).toBe(true);
    const d = await start();
    try {
      expect(await call(sock, request('STATUS', ''))).toEqual({ ok: true });
      await expect(listenDaemon(sock, async () => ({ ok: true }))).rejects.toMatchObject({ code: 'in-use' });
      expect(await call(sock, request('STATUS', ''))).toEqual({ ok: true });
    } finally {
      await d.close();
    }
  });

  it('a restarted daemon keeps live attachments and removes those of a deleted pod, a remade pod and a gone namespace', async () => {
    const names = ['keep', 'deleted', 'remade', 'nsgone'];
    const d1 = await start();
    try {
      for (const [i, name] of names.entries()) {
        await w.cluster.create(annotated(name, 40 + i));
        w.netlink.namespaces.add(`/run/netns/t-${name}`);
        expect(await call(sock, request('ADD', name))).toMatchObject({ ok: true });
      }
    } finally {
      await d1.close();
    }
    // While the daemon is down: one pod deleted, one deleted and made again (a new uid), one namespace gone.
    await w.cluster.delete({ kind: 'Pod', namespace: 'default', name: 'deleted' });
    await w.cluster.delete({ kind: 'Pod', namespace: 'default', name: 'remade' });
    await w.cluster.create(annotated('remade', 41));
    w.netlink.removeNamespace('/run/netns/t-nsgone');
    const d2 = await start();
    try {
      expect(d2.swept.map((a) => a.pod).sort()).toEqual(['deleted', 'nsgone', 'remade']);
      expect(attachmentsOf(d2.vswitch).map((a) => a.pod)).toEqual(['keep']);
      expect(await w.vsctl('list-ports', 'br-int')).toBe('c-keep_h');
      expect([...w.netlink.links.keys()]).toEqual(['c-keep_h']);
      expect(await call(sock, request('CHECK', 'keep'))).toEqual({ ok: true });
      expect(await call(sock, request('DEL', 'keep'))).toEqual({ ok: true });
    } finally {
      await d2.close();
    }
  });
  it("a running daemon applies a change of an attached pod's bandwidth annotations (through its informer)", async () => {
    const d = await start();
    try {
      await w.cluster.create(annotated('bw', 62));
      w.netlink.namespaces.add('/run/netns/t-bw');
      expect(await call(sock, request('ADD', 'bw'))).toMatchObject({ ok: true });
      expect(await w.vsctl('get', 'Interface', 'c-bw_h', 'ingress_policing_rate')).toBe('0');
      const ref = { kind: 'Pod', namespace: 'default', name: 'bw' };
      await w.cluster.patch(ref, { metadata: { annotations: { 'ovn.kubernetes.io/egress_rate': '4' } } });
      await vi.waitFor(async () =>
        expect(await w.vsctl('get', 'Interface', 'c-bw_h', 'ingress_policing_rate')).toBe('4000'),
      );
      expect(await call(sock, request('DEL', 'bw'))).toEqual({ ok: true });
    } finally {
      await d.close();
    }
  });

  it("a pod gets its Subnet's own MTU (spec.mtu), else the daemon's; CHECK compares with the same", async () => {
    await w.cluster.create({
      apiVersion: 'kubeovn.io/v1',
      kind: 'Subnet',
      metadata: { name: 'mtu-net' },
      spec: { mtu: 1300 },
    });
    const d = await start();
    try {
      const onSubnet = annotated('mtu-a', 60, { 'ovn.kubernetes.io/logical_switch': 'mtu-net' });
      await w.cluster.create(onSubnet);
      await w.cluster.create(annotated('mtu-b', 61));
      for (const name of ['mtu-a', 'mtu-b']) {
        w.netlink.namespaces.add(`/run/netns/t-${name}`);
        expect(await call(sock, request('ADD', name))).toMatchObject({ ok: true });
      }
      expect(w.netlink.links.get('c-mtu-a_h')?.state.mtu).toBe(1300);
      expect(w.netlink.links.get('c-mtu-b_h')?.state.mtu).toBe(1400);
      expect(await call(sock, request('CHECK', 'mtu-a'))).toEqual({ ok: true });
      for (const name of ['mtu-a', 'mtu-b']) expect(await call(sock, request('DEL', name))).toEqual({ ok: true });
    } finally {
      await d.close();
    }
  });
});

describe.skipIf(!requireOvn('node/daemon'))('node daemon: STATUS follows the Open_vSwitch database', () => {
  it('answers 50 while conf.db is unreachable', async () => {
    const dir = await makeTempDir('daemonstatus');
    const server = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
    const vsctl = async (...args: string[]) =>
      (await runTool('ovs-vsctl', [`--db=${server.remote}`, '--no-wait', '--timeout=10', ...args])).stdout.trim();
    const w = await makeWorld({ dir, remote: server.remote, vsctl, stop: async () => {} });
    const sock = join(dir, 'status.sock');
    const d = await startNodeDaemon({
      node: 'node1',
      cluster: w.cluster,
      netlink: w.netlink,
      ovsRemote: w.remote,
      socket: sock,
      clock: w.clock,
      wait: 'none',
    });
    try {
      expect(await call(sock, request('STATUS', ''))).toEqual({ ok: true });
      await server.stop();
      await vi.waitFor(() => expect(d.vswitch.session.state).not.toBe('synced'));
      expect(await call(sock, request('STATUS', ''))).toEqual({
        ok: false,
        error: { cniVersion: '1.0.0', code: 50, msg: 'node node1: the Open_vSwitch database is connecting' },
      });
    } finally {
      await d.close();
      await w.close();
      await removeTempDir(dir);
    }
  });
});
