/**
 * The node agent against a real Open_vSwitch database (ovsdb-server, no
 * vswitchd: rows read back with ovs-vsctl), the in-memory cluster and a
 * fake Netlink: what ADD, DEL, CHECK, STATUS and GC write and request, the
 * bounded waits, and that every failure leaves nothing behind.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { ManualTimers } from '../../backends/ovn/ovsdb/index.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addFakeNic } from '../setup/testing/fake-sysfs.ts';
import { RecordingNetlink } from '../netlink/recording.ts';
import { Vswitch } from '../ovs/index.ts';
import { NodeAgent, type NodeAgentOptions } from './agent.ts';
import { attachmentsOf } from './attachments.ts';
import { PodWatch } from './pod-watch.ts';
import { annotated, network, pod, request, type World, startWorld } from './testing/world.ts';
import { encodePodNetwork } from '../../kube/annotations.ts';

describe.skipIf(!requireOvn('node/daemon'))(
  'node agent: ADD/DEL/CHECK/STATUS/GC on a real Open_vSwitch database',
  () => {
    let w: World;
    let pods: PodWatch;
    let agent: NodeAgent;
    const make = (o: Partial<NodeAgentOptions> = {}) =>
      new NodeAgent({ node: 'node1', vswitch: w.vs, netlink: w.netlink, pods, wait: 'none', ...o });
    const get = async (table: string, row: string, column: string) =>
      (await w.vsctl('get', table, row, column)).replace(/^"(.*)"$/, '$1');
    const ns = (name: string) => w.netlink.namespaces.add(`/run/netns/t-${name}`);

    beforeAll(async () => {
      w = await startWorld('daemon');
      pods = new PodWatch(w.cluster, { clock: w.clock });
      await pods.start();
      agent = make();
    });
    afterAll(async () => {
      pods?.stop();
      await w?.close();
    });
    beforeEach(async () => {
      // Each case starts from no attachments.
      await agent.gc([]);
    });

    it('ADD plugs the veth into br-int with the iface-id, Kube-OVN external_ids and kovn record; answers the result', async () => {
      await w.cluster.create(annotated('web-0', 5));
      ns('web-0');
      const res = await agent.handle(request('ADD', 'web-0'));
      expect(res).toEqual({
        ok: true,
        result: {
          cniVersion: '1.0.0',
          interfaces: [{ name: 'eth0', mac: '0a:58:0a:10:00:05', mtu: 1400, sandbox: '/run/netns/t-web-0' }],
          ips: [{ address: '10.16.0.5/16', gateway: '10.16.0.1', interface: 0 }],
          routes: [{ dst: '0.0.0.0/0', gw: '10.16.0.1' }],
        },
      });
      const link = w.netlink.links.get('c-web-0_h');
      expect(link?.state).toMatchObject({
        ifName: 'eth0',
        addresses: ['10.16.0.5/16'],
        routes: [{ dst: 'default', gw: '10.16.0.1' }],
      });
      expect(await w.vsctl('list-ports', 'br-int')).toBe('c-web-0_h');
      expect(await get('Interface', 'c-web-0_h', 'external_ids')).toBe(
        '{iface-id=web-0.default, ip="10.16.0.5", kovn-container-id=c-web-0, kovn-ifname=eth0, kovn-network=kovn, kovn-pod-uid=uid-1, kovn-port-kind=veth, kovn-provider=ovn, pod_name=web-0, pod_namespace=default, pod_netns="/run/netns/t-web-0", vendor=kube-ovn}',
      );
      expect(await get('Interface', 'c-web-0_h', 'ingress_policing_rate')).toBe('0');
      expect(await get('Port', 'c-web-0_h', 'qos')).toBe('[]');
    });

    it('ADD waits for allocated, then routed, through the informer; the pod appearing late is fine', async () => {
      ns('late');
      const pending = agent.handle(request('ADD', 'late'));
      let settled = false;
      void pending.then(() => (settled = true));
      await w.clock.settle();
      await w.cluster.create(pod('late'));
      await w.clock.settle();
      await w.cluster.patch(
        { kind: 'Pod', namespace: 'default', name: 'late' },
        { metadata: { annotations: encodePodNetwork(network(9, false)) } },
      );
      await w.clock.settle();
      expect(settled).toBe(false);
      expect(w.netlink.links.has('c-late_h')).toBe(false);
      await w.cluster.patch(
        { kind: 'Pod', namespace: 'default', name: 'late' },
        { metadata: { annotations: { 'ovn.kubernetes.io/routed': 'true' } } },
      );
      expect(await pending).toMatchObject({ ok: true, result: { ips: [{ address: '10.16.0.9/16' }] } });
    });

    it('the annotation wait is bounded: error 100 naming the pod and routed; 101 for a pod never seen; nothing left', async () => {
      await w.cluster.create(pod('never', encodePodNetwork(network(11, false))));
      ns('never');
      const a = agent.handle(request('ADD', 'never'));
      const b = agent.handle(request('ADD', 'ghost'));
      await vi.waitFor(() => expect(w.clock.pending()).toBe(2));
      w.clock.advance(20_000);
      expect(await a).toEqual({
        ok: false,
        error: {
          cniVersion: '1.0.0',
          code: 100,
          msg: 'pod default/never: annotations not ready within 20000 ms: ovn.kubernetes.io/routed: not "true" yet',
        },
      });
      expect(await b).toMatchObject({
        ok: false,
        error: { code: 101, msg: 'pod default/ghost: not found in the cluster within 20000 ms' },
      });
      expect(w.netlink.links.size).toBe(0);
      expect(await w.vsctl('list-ports', 'br-int')).toBe('');
    });

    it('ADD of an attached container interface is refused (104) and leaves the attachment as it was', async () => {
      await w.cluster.create(annotated('twice', 12));
      ns('twice');
      expect((await agent.handle(request('ADD', 'twice'))).ok).toBe(true);
      const again = await agent.handle(request('ADD', 'twice'));
      expect(again).toMatchObject({
        ok: false,
        error: { code: 104, msg: expect.stringMatching(/c-twice interface eth0: attached already/) },
      });
      expect(await w.vsctl('list-ports', 'br-int')).toBe('c-twice_h');
      expect(w.netlink.links.has('c-twice_h')).toBe(true);
      expect((await agent.handle(request('CHECK', 'twice'))).ok).toBe(true);
    });

    it('a namespace that disappears mid-ADD: netlink error 103, no port, no link', async () => {
      await w.cluster.create(annotated('vanish', 13));
      ns('vanish');
      w.netlink.midAdd = (l) => w.netlink.removeNamespace(l.netns);
      try {
        const res = await agent.handle(request('ADD', 'vanish'));
        expect(res).toMatchObject({ ok: false, error: { code: 103, msg: expect.stringMatching(/t-vanish/) } });
      } finally {
        w.netlink.midAdd = undefined;
      }
      expect(w.netlink.links.size).toBe(0);
      expect(await w.vsctl('list-ports', 'br-int')).toBe('');
    });

    it('ovn-installed never set: error 102 after the bound, and the port and veth are undone', async () => {
      await w.cluster.create(annotated('slow', 14));
      ns('slow');
      const timers = new ManualTimers();
      const vs = await Vswitch.open({ remote: w.remote, timers });
      try {
        const strict = make({ vswitch: vs, wait: 'installed', installTimeoutMs: 5000 });
        const res = strict.handle(request('ADD', 'slow'));
        await vi.waitFor(() => expect(vs.cache.lookup('Interface', 'name', 'c-slow_h')).toHaveLength(1));
        await vi.waitFor(() => expect(timers.pending).toBeGreaterThan(0));
        timers.advance(5000);
        expect(await res).toMatchObject({
          ok: false,
          error: { code: 102, msg: 'Interface c-slow_h: external_ids:ovn-installed not set within 5000 ms' },
        });
      } finally {
        vs.close();
      }
      expect(w.netlink.links.size).toBe(0);
      expect(await w.vsctl('list-ports', 'br-int')).toBe('');
    });

    it('ADD waits for ovn-installed and answers once another client (as ovn-controller) sets it', async () => {
      await w.cluster.create(annotated('inst', 15));
      ns('inst');
      const strict = make({ wait: 'installed' });
      const res = strict.handle(request('ADD', 'inst'));
      await vi.waitFor(() => expect(w.vs.cache.lookup('Interface', 'name', 'c-inst_h')).toHaveLength(1));
      await w.vsctl('set', 'Interface', 'c-inst_h', 'external_ids:ovn-installed="true"');
      expect((await res).ok).toBe(true);
    });

    it('DEL undoes port and veth; twice, with the namespace gone, or for nothing is success', async () => {
      await w.cluster.create(annotated('del', 16));
      ns('del');
      expect((await agent.handle(request('ADD', 'del'))).ok).toBe(true);
      expect(await agent.handle(request('DEL', 'del'))).toEqual({ ok: true });
      expect(w.netlink.links.size).toBe(0);
      expect(await w.vsctl('list-ports', 'br-int')).toBe('');
      expect(await agent.handle(request('DEL', 'del'))).toEqual({ ok: true });
      expect(await agent.handle(request('DEL', 'nobody', { netns: '' }))).toEqual({ ok: true });
      expect((await agent.handle(request('ADD', 'del'))).ok).toBe(true);
      w.netlink.removeNamespace('/run/netns/t-del');
      expect(await agent.handle(request('DEL', 'del', { netns: '' }))).toEqual({ ok: true });
      expect(await w.vsctl('list-ports', 'br-int')).toBe('');
    });

    it("QoS as Kube-OVN maps it: egress_rate polices the interface's ingress, ingress_rate an htb queue; DEL removes the rows", async () => {
      await w.cluster.create(
        annotated('qos', 17, { 'ovn.kubernetes.io/egress_rate': '10', 'ovn.kubernetes.io/ingress_rate': '20' }),
      );
      ns('qos');
      expect((await agent.handle(request('ADD', 'qos'))).ok).toBe(true);
      expect(await get('Interface', 'c-qos_h', 'ingress_policing_rate')).toBe('10000');
      expect(await get('Interface', 'c-qos_h', 'ingress_policing_burst')).toBe('8000');
      const qos = await get('Port', 'c-qos_h', 'qos');
      expect(await get('QoS', qos, 'type')).toBe('linux-htb');
      expect(await get('QoS', qos, 'external_ids')).toBe('{iface-id=qos.default, pod="default/qos"}');
      const queue = await get('QoS', qos, 'queues:0');
      expect(await get('Queue', queue, 'other_config')).toBe('{burst="2000000", max-rate="20000000"}');
      expect(await get('Queue', queue, 'external_ids')).toBe('{iface-id=qos.default, pod="default/qos"}');
      expect((await agent.handle(request('DEL', 'qos'))).ok).toBe(true);
      expect(await w.vsctl('--columns=_uuid', 'list', 'QoS')).toBe('');
      expect(await w.vsctl('--columns=_uuid', 'list', 'Queue')).toBe('');
    });

    it('QoS follows the annotations of an attached pod: rates changed, then removed', async () => {
      await w.cluster.create(
        annotated('qos2', 18, { 'ovn.kubernetes.io/ingress_rate': '5', 'ovn.kubernetes.io/ingress_burst': '2' }),
      );
      ns('qos2');
      expect((await agent.handle(request('ADD', 'qos2'))).ok).toBe(true);
      const queue = await get('QoS', await get('Port', 'c-qos2_h', 'qos'), 'queues:0');
      expect(await get('Queue', queue, 'other_config')).toBe('{burst="250000", max-rate="5000000"}');
      const ref = { kind: 'Pod', namespace: 'default', name: 'qos2' };
      await agent.refreshBandwidth(
        await w.cluster.patch(ref, {
          metadata: { annotations: { 'ovn.kubernetes.io/ingress_rate': '7', 'ovn.kubernetes.io/egress_rate': '3' } },
        }),
      );
      expect(await get('Queue', queue, 'other_config')).toBe('{burst="250000", max-rate="7000000"}');
      expect(await get('Interface', 'c-qos2_h', 'ingress_policing_rate')).toBe('3000');
      await agent.refreshBandwidth(
        await w.cluster.patch(ref, {
          metadata: { annotations: { 'ovn.kubernetes.io/ingress_rate': null, 'ovn.kubernetes.io/egress_rate': null } },
        }),
      );
      expect(await get('Port', 'c-qos2_h', 'qos')).toBe('[]');
      expect(await w.vsctl('--columns=_uuid', 'list', 'QoS')).toBe('');
      expect(await w.vsctl('--columns=_uuid', 'list', 'Queue')).toBe('');
      expect(await get('Interface', 'c-qos2_h', 'ingress_policing_rate')).toBe('0');
    });

    it('an ingress_rate that does not parse fails ADD with 105 naming the annotation', async () => {
      await w.cluster.create(annotated('badqos', 19, { 'ovn.kubernetes.io/ingress_rate': '10M' }));
      ns('badqos');
      expect(await agent.handle(request('ADD', 'badqos'))).toMatchObject({
        ok: false,
        error: {
          code: 105,
          msg: expect.stringMatching(/ovn\.kubernetes\.io\/ingress_rate: "10M" is not a whole number/),
        },
      });
      expect(w.netlink.links.size).toBe(0);
    });

    it('CHECK passes on a good attachment and names each difference otherwise', async () => {
      await w.cluster.create(annotated('chk', 20));
      ns('chk');
      expect((await agent.handle(request('ADD', 'chk'))).ok).toBe(true);
      expect(await agent.handle(request('CHECK', 'chk'))).toEqual({ ok: true });
      const link = w.netlink.links.get('c-chk_h');
      if (link === undefined) throw new Error('no link');
      w.netlink.links.set('c-chk_h', { ...link, state: { ...link.state, mac: '0a:00:00:00:00:99', routes: [] } });
      expect(await agent.handle(request('CHECK', 'chk'))).toMatchObject({
        ok: false,
        error: {
          code: 103,
          msg: 'pod default/chk: interface eth0 in /run/netns/t-chk: MAC 0a:00:00:00:00:99, want 0a:58:0a:10:00:14; interface eth0 in /run/netns/t-chk: route default via 10.16.0.1 missing',
        },
      });
      w.netlink.links.set('c-chk_h', link);
      await w.vsctl('set', 'Interface', 'c-chk_h', 'external_ids:iface-id=other.default');
      expect(await agent.handle(request('CHECK', 'chk'))).toMatchObject({
        ok: false,
        error: { code: 102, msg: 'pod default/chk: OVS interface c-chk_h: iface-id other.default, want chk.default' },
      });
    });

    it('CHECK of a container never attached is 3 (unknown container)', async () => {
      expect(await agent.handle(request('CHECK', 'nothing'))).toMatchObject({ ok: false, error: { code: 3 } });
    });

    it('STATUS answers once the pods are listed and br-int exists; 50 otherwise', async () => {
      expect(await agent.handle(request('STATUS', '', { containerId: '' }))).toEqual({ ok: true });
      const other = make({ bridge: 'br-none' });
      expect(await other.handle(request('STATUS', ''))).toMatchObject({
        ok: false,
        error: { code: 50, msg: 'node node1: bridge br-none does not exist' },
      });
    });

    it('GC keeps the valid attachments and removes the rest of ours (ports, veths, QoS rows)', async () => {
      for (const [name, n] of [
        ['gc-a', 21],
        ['gc-b', 22],
      ] as const) {
        await w.cluster.create(annotated(name, n, { 'ovn.kubernetes.io/ingress_rate': '1' }));
        ns(name);
        expect((await agent.handle(request('ADD', name))).ok).toBe(true);
      }
      // Another network's attachment: GC for kovn leaves it.
      await w.cluster.create(annotated('gc-net2', 25));
      ns('gc-net2');
      expect((await agent.handle(request('ADD', 'gc-net2', { network: 'net2' }))).ok).toBe(true);
      // A port that is not ours stays whatever GC is told.
      await w.vsctl('add-port', 'br-int', 'foreign', '--', 'set', 'Interface', 'foreign', 'type=internal');
      try {
        const res = await agent.handle({
          ...request('GC', ''),
          validAttachments: [{ containerId: 'c-gc-a', ifName: 'eth0' }],
        });
        expect(res).toEqual({ ok: true });
        expect(attachmentsOf(w.vs).map((a) => a.pod)).toEqual(['gc-a', 'gc-net2']);
        expect((await w.vsctl('list-ports', 'br-int')).split('\n')).toEqual(['c-gc-a_h', 'c-gc-net2_h', 'foreign']);
        expect([...w.netlink.links.keys()].sort()).toEqual(['c-gc-a_h', 'c-gc-net2_h']);
        expect((await w.vsctl('--columns=_uuid', 'list', 'QoS')).split('\n').filter(Boolean)).toHaveLength(1);
      } finally {
        await w.vsctl('del-port', 'br-int', 'foreign');
      }
    });

    it('the pod end asks for transmit checksum offload off on a netdev br-int (userspace datapath), not on a kernel one', async () => {
      await w.cluster.create(annotated('txoff', 23));
      ns('txoff');
      await w.cluster.create(annotated('txon', 24));
      ns('txon');
      expect((await agent.handle(request('ADD', 'txon'))).ok).toBe(true);
      expect(w.netlink.added.at(-1)).not.toHaveProperty('txChecksumOff');
      await w.vsctl('set', 'Bridge', 'br-int', 'datapath_type=netdev');
      try {
        await vi.waitFor(() => expect(w.vs.bridge('br-int')?.datapath_type).toBe('netdev'));
        expect((await agent.handle(request('ADD', 'txoff'))).ok).toBe(true);
        expect(w.netlink.added.at(-1)).toMatchObject({ hostIfName: 'c-txoff_h', txChecksumOff: true });
      } finally {
        await w.vsctl('set', 'Bridge', 'br-int', 'datapath_type=""');
      }
    });

    it('dpdk profile: a pod with a vhost-user socket gets a dpdkvhostuserclient port and no link; DEL removes the port', async () => {
      const rec = new RecordingNetlink();
      const dpdk = make({ netlink: rec, profile: 'dpdk', vhostSocketDir: '/var/run/vhost' });
      await w.cluster.create(annotated('dpdk', 26));
      const more = { vhostUserSocketVolumeName: 'vol', vhostUserSocketName: 'sock' };
      expect((await dpdk.handle(request('ADD', 'dpdk', more))).ok).toBe(true);
      const uid = (await w.cluster.get({ kind: 'Pod', namespace: 'default', name: 'dpdk' }))?.metadata.uid;
      expect(await get('Interface', 'c-dpdk_h', 'type')).toBe('dpdkvhostuserclient');
      expect(await get('Interface', 'c-dpdk_h', 'options:vhost-server-path')).toBe(`/var/run/vhost/${uid}/vol/sock`);
      expect(await get('Interface', 'c-dpdk_h', 'external_ids:kovn-port-kind')).toBe('vhost-user');
      expect(rec.requests).toEqual([]);
      expect(await dpdk.handle(request('CHECK', 'dpdk'))).toEqual({ ok: true });
      expect(await dpdk.handle(request('DEL', 'dpdk'))).toEqual({ ok: true });
      expect(await w.vsctl('list-ports', 'br-int')).toBe('');
      expect(rec.requests).toEqual([]);
    });

    it('hw-offload profile: the VF representor is the port, the VF moves into the pod; DEL brings it back', async () => {
      const sysfs = await mkdtemp(join(tmpdir(), 'kovn-sysfs-'));
      try {
        await addFakeNic(sysfs, {
          pf: '0000:03:00.0',
          uplink: { name: 'enp3s0f0np0', switchId: 'aabbcc', portName: 'p0' },
          vfs: [{ pci: '0000:03:00.2', netdev: 'enp3s0f0v0', rep: { name: 'eth10', portName: 'pf0vf0' } }],
        });
        const rec = new RecordingNetlink({ hostLinks: ['eth10', 'enp3s0f0v0'] });
        const offload = make({ netlink: rec, profile: 'hw-offload', sysfsRoot: sysfs });
        await w.cluster.create(annotated('vf', 27));
        expect((await offload.handle(request('ADD', 'vf', { deviceId: '0000:03:00.2' }))).ok).toBe(true);
        expect(rec.requests.map((r) => r.op)).toEqual(['configureHostLink', 'configureHostLink', 'movePodLink']);
        expect(rec.requests[0]).toMatchObject({ config: { name: 'eth10', rename: 'c-vf_h', up: false } });
        expect(rec.requests[2]).toMatchObject({
          link: { name: 'enp3s0f0v0', ifName: 'eth0', addresses: ['10.16.0.27/16'] },
        });
        expect(await get('Interface', 'c-vf_h', 'external_ids:kovn-vf-netdev')).toBe('enp3s0f0v0');
        expect(await offload.handle(request('CHECK', 'vf'))).toEqual({ ok: true });
        rec.requests.length = 0;
        expect(await offload.handle(request('DEL', 'vf'))).toEqual({ ok: true });
        expect(rec.requests).toEqual([
          // node/netlink's recorder records the reads too: DEL looks for the host end among the links first.
          { op: 'listLinks' },
          { op: 'configureHostLink', config: { name: 'c-vf_h', up: false } },
          { op: 'releasePodLink', netns: '/run/netns/t-vf', ifName: 'eth0', name: 'enp3s0f0v0' },
        ]);
        expect(await w.vsctl('list-ports', 'br-int')).toBe('');
        expect(rec.hostLinks()).toContain('enp3s0f0v0');
      } finally {
        await rm(sysfs, { recursive: true, force: true });
      }
    });

    it('a VF asked of a node whose profile cannot give one is refused (7) naming deviceID; nothing made or removed', async () => {
      await w.cluster.create(annotated('novf', 28));
      ns('novf');
      // An earlier sandbox of the pod: an ADD that goes through replaces its port, a refused one must not.
      expect((await agent.handle(request('ADD', 'novf', { containerId: 'c-old' }))).ok).toBe(true);
      const rec = new RecordingNetlink();
      const netdev = make({ netlink: rec, profile: 'netdev' });
      expect(await netdev.handle(request('ADD', 'novf', { deviceId: '0000:03:00.2' }))).toMatchObject({
        ok: false,
        error: {
          code: 7,
          msg: expect.stringMatching(/^deviceID: .*needs the hw-offload profile, this node runs netdev/),
        },
      });
      expect(rec.requests).toEqual([]);
      expect(await w.vsctl('list-ports', 'br-int')).toBe('c-old_h');
    });
  },
);
