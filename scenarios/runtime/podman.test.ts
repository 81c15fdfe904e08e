// A real container runtime calls kovn's plugin: podman 4.3 with its CNI backend and a kovn
// conflist (in a temp dir) runs two containers; the plugin executable (dist/cni/kovn) asks the
// node daemon, which wires each into br-int of a real ovs-vswitchd (netdev) with the address
// the controller's IPAM wrote in its pod's annotations. `podman rm` runs DEL.
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../backends/ovn/control-plane/index.ts';
import { requireOvn } from '../../backends/ovn/control-plane/binaries.ts';
import type { PodNetworkRead } from '../../kube/annotations.ts';
import { ensurePluginBuilt } from '../../node/bundle/index.ts';
import { Podman } from './podman.ts';
import { etcSnapshot, host, requireRuntime } from './support.ts';
import { RuntimeWorld } from './world.ts';

/** Where libcni (in podman) keeps each attachment's result until DEL. */
const CNI_CACHE = '/var/lib/cni/results';

const runs = requireOvn('podman calls kovn-cni') && requireRuntime(['netns', 'podman'], 'podman calls kovn-cni');

describe.skipIf(!runs)('podman 4.3 runs two containers through kovn', () => {
  let world: RuntimeWorld;
  let pm: Podman;
  let image = '';
  const net: Record<string, PodNetworkRead> = {};
  /** What each container had once it ran: its namespace path and its OVS port (the veth's host end). */
  const wired: Record<string, { id: string; netns: string; hostNic: string }> = {};

  const vsctl = async (...args: string[]) =>
    (await runTool('ovs-vsctl', [`--db=${world.ovsRemote}`, '--timeout=10', ...args])).stdout.trim();
  const etcBefore = etcSnapshot();
  const portOf = (pod: string) =>
    vsctl('--bare', '--columns=name', 'find', 'Interface', `external_ids:iface-id=${pod}.default`);

  beforeAll(async () => {
    const plugin = await ensurePluginBuilt();
    world = await RuntimeWorld.start();
    pm = Podman.setup({ dir: join(world.dir, 'podman'), pluginDirs: [dirname(plugin)] });
    pm.addNetwork({
      cniVersion: '1.0.0',
      name: 'kovn',
      // podman names the container in K8S_POD_NAME and gives no namespace: the config does.
      plugins: [{ ...world.pluginConfig(basename(plugin)), pod_namespace: 'default' }],
    });
    // The same plugin without pod_namespace: what kovn answers a runtime that names no namespace.
    pm.addNetwork({ cniVersion: '1.0.0', name: 'kovn-nons', plugins: [world.pluginConfig(basename(plugin))] });
    image = await pm.importBusybox();
    // The pods exist before their containers, named as podman names them (the container name).
    net.pa = await world.createPod({ name: 'pa' });
    net.pb = await world.createPod({ name: 'pb' });
  });
  afterAll(async () => {
    await pm?.removeAll();
    await world?.close();
  });

  it('each container gets the address and MAC kovn gave its pod', async () => {
    for (const name of ['pa', 'pb']) {
      // A bounded life: should this process die without its teardown, the containers end soon
      // and podman's cleanup runs DEL and removes their namespaces.
      const id = await pm.run(['-d', '--name', name, '--network', 'kovn', image, 'sleep', '120']);
      const n = net[name]!;
      const prefix = n.cidrs[0]!.split('/')[1];
      const addr = (await pm.exec(name, ['ip', '-4', '-o', 'addr', 'show', 'eth0'])).stdout;
      expect(addr).toContain(`inet ${n.ips[0]}/${prefix}`);
      const link = (await pm.exec(name, ['ip', '-o', 'link', 'show', 'eth0'])).stdout;
      expect(link).toContain(`link/ether ${n.mac}`);
      const route = (await pm.exec(name, ['ip', 'route', 'show', 'default'])).stdout;
      expect(route).toContain(`default via ${n.gateways[0]} dev eth0`);
      expect(await pm.inspect(name, '{{.NetworkSettings.Networks.kovn.IPAddress}}')).toBe(n.ips[0]);
      const hostNic = await portOf(name);
      expect(hostNic).not.toBe('');
      expect(await vsctl('get', 'Interface', hostNic, 'external_ids:ovn-installed')).toBe('"true"');
      expect(await host('ip', ['-n', world.hostNetns, '-o', 'link', 'show', hostNic])).toContain(`${hostNic}@`);
      wired[name] = { id, netns: await pm.inspect(name, '{{.NetworkSettings.SandboxKey}}'), hostNic };
      expect(existsSync(wired[name].netns)).toBe(true);
    }
  });

  it('one container reaches the other through OVS (ICMP and a TCP exchange)', async () => {
    const to = net.pb!.ips[0]!;
    const ping = await pm.exec('pa', ['ping', '-c', '3', '-W', '2', to]);
    expect(ping.stdout).toMatch(/3 packets transmitted, 3 packets received/);
    await pm.ok(['exec', '-d', 'pb', 'sh', '-c', 'echo hello-from-pb | nc -l -p 8080']);
    let got = '';
    // The listener starts in the background: the first connects may come before it listens.
    for (let i = 0; i < 10 && got === ''; i++) got = (await pm.exec('pa', ['nc', '-w', '2', to, '8080'])).stdout.trim();
    expect(got).toBe('hello-from-pb');
    // The frames went through br-int: OVS read pa's frames from its veth's host end and wrote to pb's
    // (the kernel's counters of the host ends, in the node's host network where vswitchd runs).
    const stats = async (nic: string) => {
      const out = await host('ip', ['-n', world.hostNetns, '-s', '-j', 'link', 'show', nic]);
      return (JSON.parse(out) as { stats64: { rx: { packets: number }; tx: { packets: number } } }[])[0]!.stats64;
    };
    expect((await stats(wired.pa!.hostNic)).rx.packets).toBeGreaterThan(0);
    expect((await stats(wired.pb!.hostNic)).tx.packets).toBeGreaterThan(0);
  });

  it('podman rm runs DEL: no veth, no OVS port, no namespace is left', async () => {
    await pm.ok(['rm', '--force', '--time', '0', 'pa', 'pb']);
    for (const name of ['pa', 'pb']) {
      const w = wired[name]!;
      expect(await portOf(name)).toBe('');
      expect(await vsctl('--bare', '--columns=name', 'find', 'Port', `name=${w.hostNic}`)).toBe('');
      await expect(host('ip', ['-n', world.hostNetns, 'link', 'show', w.hostNic])).rejects.toThrow(/does not exist/);
      expect(existsSync(w.netns)).toBe(false);
      // libcni's cache of the ADD result (`<network>-<container id>-<ifname>`) went with the DEL too.
      expect(existsSync(join(CNI_CACHE, `kovn-${w.id}-eth0`))).toBe(false);
    }
  });

  it('without pod_namespace the plugin refuses the ADD (code 4, naming K8S_POD_NAMESPACE) and podman starts nothing', async () => {
    await world.createPod({ name: 'pc' });
    const r = await pm.command(['run', '--name', 'pc', '--network', 'kovn-nons', image, 'true']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('CNI_ARGS lacks K8S_POD_NAMESPACE');
    expect(await portOf('pc')).toBe('');
    await pm.command(['rm', '--force', 'pc']);
  });

  it('wrote nothing under /etc/cni/net.d or /etc/containers', () => {
    expect(etcSnapshot()).toEqual(etcBefore);
  });
});
