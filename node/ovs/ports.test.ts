/**
 * node/ovs against a real ovsdb-server on the Open_vSwitch schema (no
 * vswitchd, no ovn-controller): what it writes is read back with ovs-vsctl,
 * OVS's own client, and the marks vswitchd and ovn-controller would write
 * (cur_cfg, ovn-installed) are written by hand, as another client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  VSWITCH_SCHEMA,
  makeTempDir,
  removeTempDir,
  requireOvn,
  runTool,
  startOvsdbServer,
  type OvsdbServer,
} from '../../backends/ovn/control-plane/index.ts';
import { ManualTimers } from '../../backends/ovn/ovsdb/index.ts';
import { encodePodNetwork } from '../../kube/annotations.ts';
import {
  OvsError,
  Vswitch,
  addPort,
  deletePort,
  findPort,
  getPort,
  podIfaceId,
  podPortSpec,
  setInterfaceOps,
  waitInstalled,
} from './index.ts';

describe.skipIf(!requireOvn('node/ovs'))('node/ovs: ports on a real Open_vSwitch database', () => {
  let dir: string | undefined;
  let server: OvsdbServer;
  let vs: Vswitch;
  const vsctl = async (...args: string[]) =>
    (await runTool('ovs-vsctl', [`--db=${server.remote}`, '--no-wait', '--timeout=10', ...args])).stdout.trim();

  /** One column or map key, as ovs-vsctl prints it, without the quotes it adds to some strings. */
  const get = async (table: string, row: string, column: string) =>
    (await vsctl('get', table, row, column)).replace(/^"(.*)"$/, '$1');

  beforeAll(async () => {
    dir = await makeTempDir('nodeovs');
    server = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
    // The root row: ovs-ctl's job on a real node, not the agent's.
    await vsctl('init');
    vs = await Vswitch.open({ remote: server.remote });
    await vs.ensureBridge({ name: 'br-int', failMode: 'secure', otherConfig: { 'disable-in-band': 'true' } });
  });
  afterAll(async () => {
    vs?.close();
    await server?.stop();
    if (dir !== undefined) await removeTempDir(dir);
  });

  it('creates br-int as ovs-vsctl add-br does (internal port of its name), once', async () => {
    expect(await vsctl('list-br')).toBe('br-int');
    expect(await get('Bridge', 'br-int', 'fail_mode')).toBe('secure');
    expect(await get('Interface', 'br-int', 'type')).toBe('internal');
    await vs.ensureBridge({ name: 'br-int', failMode: 'secure' });
    expect(await vsctl('list-br')).toBe('br-int');
    expect(await get('Bridge', 'br-int', 'other_config:disable-in-band')).toBe('true');
  });

  it('adds a pod port with iface-id, type, options and external_ids; finds it by iface-id', async () => {
    const ifaceId = podIfaceId('web-0', 'default');
    const ref = await addPort(vs, {
      name: 'veth-web0',
      ifaceId,
      type: 'dummy',
      externalIds: { 'attached-mac': '0a:00:00:00:00:01' },
      options: { tx_pcap: '/dev/null' },
    });
    expect(ref.bridge).toBe('br-int');
    expect(await vsctl('list-ports', 'br-int')).toBe('veth-web0');
    expect(await get('Interface', 'veth-web0', 'external_ids:iface-id')).toBe('web-0.default');
    expect(await get('Interface', 'veth-web0', 'external_ids:attached-mac')).toBe('0a:00:00:00:00:01');
    expect(await get('Interface', 'veth-web0', 'type')).toBe('dummy');
    expect(await get('Interface', 'veth-web0', 'options:tx_pcap')).toBe('/dev/null');
    expect(findPort(vs, ifaceId)?.port._uuid).toBe(ref.port._uuid);
    expect(findPort(vs, 'nobody.default')).toBeUndefined();
  });

  it('adding the same port again converges it to the spec, same rows', async () => {
    const first = getPort(vs, 'veth-web0');
    const again = await addPort(vs, { name: 'veth-web0', ifaceId: 'web-0.default', type: 'internal' });
    expect(again.port._uuid).toBe(first?.port._uuid);
    expect(again.iface._uuid).toBe(first?.iface._uuid);
    expect(await get('Interface', 'veth-web0', 'type')).toBe('internal');
    expect(await get('Interface', 'veth-web0', 'options')).toBe('{}');
    expect(await vsctl('list-ports', 'br-int')).toBe('veth-web0');
  });

  it('fails typed on a missing bridge and on a name taken on another bridge', async () => {
    await expect(addPort(vs, { name: 'p-nobr', bridge: 'br-none' })).rejects.toMatchObject({ code: 'no-bridge' });
    expect(await vsctl('--columns=name', 'find', 'Port', 'name=p-nobr')).toBe('');
    await vs.ensureBridge({ name: 'br-ex' });
    await expect(addPort(vs, { name: 'veth-web0', bridge: 'br-ex' })).rejects.toBeInstanceOf(OvsError);
    await expect(addPort(vs, { name: 'br-int', bridge: 'br-ex' })).rejects.toMatchObject({ code: 'exists' });
  });

  it("plumbs a pod's port from the controller's annotations (podPortSpec)", async () => {
    const annotations = encodePodNetwork({
      ips: ['10.16.0.7'],
      mac: '0a:58:0a:10:00:07',
      cidrs: ['10.16.0.0/16'],
      gateways: ['10.16.0.1'],
      logicalSwitch: 'ovn-default',
      logicalRouter: 'ovn-cluster',
      podNicType: 'veth-pair',
      routed: true,
    });
    const spec = podPortSpec({ pod: 'api-1', namespace: 'shop', hostNic: 'api1_h' }, annotations);
    if (!spec.ok) throw new Error(spec.issue.message);
    await addPort(vs, spec.value);
    expect(findPort(vs, 'api-1.shop')?.port.name).toBe('api1_h');
    expect(await get('Interface', 'api1_h', 'external_ids:ip')).toBe('10.16.0.7');
    expect(await get('Interface', 'api1_h', 'external_ids:vendor')).toBe('kube-ovn');
    expect(await deletePort(vs, 'api1_h')).toBe(true);
  });

  it('deletes a port (and its interface); deleting again is not an error', async () => {
    await addPort(vs, { name: 'veth-tmp', ifaceId: 'tmp.default' });
    expect(await deletePort(vs, 'veth-tmp')).toBe(true);
    expect(await deletePort(vs, 'veth-tmp')).toBe(false);
    expect(await vsctl('list-ports', 'br-int')).toBe('veth-web0');
    expect(await vsctl('--columns=name', 'find', 'Interface', 'name=veth-tmp')).toBe('');
    expect(findPort(vs, 'tmp.default')).toBeUndefined();
  });

  it('sets and removes interface options and external_ids, keeping other keys', async () => {
    await vs.commit(setInterfaceOps(vs, 'veth-web0', { options: { tx_pcap: '/tmp/a' }, externalIds: { x: '1' } }));
    await vs.commit(setInterfaceOps(vs, 'veth-web0', { options: { tx_pcap: '/tmp/b' }, removeExternalIds: ['x'] }));
    expect(await get('Interface', 'veth-web0', 'options:tx_pcap')).toBe('/tmp/b');
    expect(await get('Interface', 'veth-web0', 'external_ids')).toBe('{iface-id=web-0.default}');
  });

  it('waits for ovn-installed, set by another client as ovn-controller does', async () => {
    const waiting = waitInstalled(vs, ['veth-web0'], { timeoutMs: 30_000 });
    await vsctl('set', 'Interface', 'veth-web0', 'external_ids:ovn-installed="true"');
    await waiting;
    expect(findPort(vs, 'web-0.default')?.iface.external_ids['ovn-installed']).toBe('true');
  });

  it('bounds the waits: ovn-installed never set, cur_cfg never reached (no vswitchd)', async () => {
    const timers = new ManualTimers();
    const slow = await Vswitch.open({ remote: server.remote, timers });
    try {
      await addPort(slow, { name: 'veth-never', ifaceId: 'never.default' });
      const installed = waitInstalled(slow, ['veth-web0', 'veth-never'], { timeoutMs: 5000 });
      timers.advance(5000);
      await expect(installed).rejects.toMatchObject({ code: 'not-installed', message: /veth-never:/ });
      const applied = slow.commit(setInterfaceOps(slow, 'veth-never', { options: { a: 'b' } }), {
        waitApplied: true,
        timeoutMs: 5000,
      });
      // The transaction commits; only vswitchd's cur_cfg is missing.
      await expect.poll(() => getPort(slow, 'veth-never')?.iface.options.a).toBe('b');
      timers.advance(5000);
      await expect(applied).rejects.toMatchObject({ code: 'not-applied' });
    } finally {
      slow.close();
    }
  });

  it('waitApplied resolves once cur_cfg reaches the transaction next_cfg (written here as vswitchd would)', async () => {
    const applied = vs.commit(setInterfaceOps(vs, 'veth-web0', { options: { b: 'c' } }), { waitApplied: true });
    await expect.poll(() => getPort(vs, 'veth-web0')?.iface.options.b).toBe('c');
    const next = vs.root().next_cfg;
    await vsctl('set', 'Open_vSwitch', '.', `cur_cfg=${next}`);
    await applied;
    expect(vs.root().cur_cfg).toBe(next);
  });
});
