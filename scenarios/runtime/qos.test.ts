// QoS with real traffic: pods wired by the plugin and the node daemon into a real ovs-vswitchd
// (netdev datapath), a bulk TCP transfer measured by the receiver. `ingress_rate` (what the pod
// receives) becomes a linux-htb QoS on its port, which ovs-vswitchd applies with tc on the veth's
// host end it sends to (node/daemon/qos.ts); `egress_rate` (what it sends) becomes the
// Interface's ingress policing, a tc policer on that end. The figures are printed; the bound is
// loose (25 %).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../backends/ovn/control-plane/exec.ts';
import { runTool } from '../../backends/ovn/control-plane/index.ts';
import { requireOvn } from '../../backends/ovn/control-plane/binaries.ts';
import { ensurePluginBuilt } from '../../node/bundle/index.ts';
import { type CniPod, CniPods } from './cni-pods.ts';
import { requireRuntime } from './support.ts';
import { measureTransfer } from './transfer.ts';
import { RuntimeWorld } from './world.ts';

const runs = requireOvn('QoS with real traffic') && requireRuntime(['netns'], 'QoS with real traffic');
const RATE_MBPS = 20;
const mbps = (bps: number) => (bps / 1e6).toFixed(2);
const addressOf = (p: CniPod) => (p.result.ips?.[0]?.address ?? '').split('/')[0] ?? '';

describe.skipIf(!runs)('pod bandwidth annotations with real traffic', () => {
  let world: RuntimeWorld;
  let pods: CniPods;
  const p: Record<string, CniPod> = {};

  beforeAll(async () => {
    const plugin = await ensurePluginBuilt();
    world = await RuntimeWorld.start();
    pods = new CniPods({ plugin, pluginConfig: world.pluginConfig(), namespaces: world.namespaces });
    const specs: [string, Record<string, string>][] = [
      ['sender', {}],
      ['free', {}],
      ['limited-in', { 'ovn.kubernetes.io/ingress_rate': String(RATE_MBPS) }],
      ['limited-out', { 'ovn.kubernetes.io/egress_rate': String(RATE_MBPS) }],
    ];
    for (const [name, annotations] of specs) {
      await world.createPod({ name, annotations });
      p[name] = await pods.add(name);
    }
  });
  afterAll(async () => {
    await pods?.removeAll();
    await world?.close();
  });

  const transfer = (from: string, to: string, port: number) =>
    measureTransfer({
      server: { netns: p[to]!.netns, port },
      client: { netns: p[from]!.netns, host: addressOf(p[to]!) },
      seconds: 4,
    });

  it(`ingress_rate ${RATE_MBPS}: a transfer into the pod stays within 25 % of the rate; into a pod without it, well above`, async () => {
    const free = await transfer('sender', 'free', 5201);
    const limited = await transfer('sender', 'limited-in', 5202);
    process.stderr.write(
      `qos: ingress_rate=${RATE_MBPS} measured ${mbps(limited.bitsPerSecond)} Mbit/s over ${limited.measuredSeconds.toFixed(1)} s; ` +
        `no annotation ${mbps(free.bitsPerSecond)} Mbit/s\n`,
    );
    expect(Math.abs(limited.bitsPerSecond - RATE_MBPS * 1e6) / (RATE_MBPS * 1e6)).toBeLessThan(0.25);
    expect(free.bitsPerSecond).toBeGreaterThan(3 * RATE_MBPS * 1e6);
  });

  it(`egress_rate ${RATE_MBPS}: the port's ingress policing is set as Kube-OVN sets it; the transfer out keeps to it, or vswitchd says the kernel refused the policer`, async () => {
    const vsctl = (...a: string[]) =>
      runTool('ovs-vsctl', [`--db=${world.ovsRemote}`, ...a]).then((r) => r.stdout.trim());
    const nic = await vsctl(
      '--bare',
      '--columns=name',
      'find',
      'Interface',
      'external_ids:iface-id=limited-out.default',
    );
    expect(await vsctl('get', 'Interface', nic, 'ingress_policing_rate')).toBe(String(RATE_MBPS * 1000));
    const out = await transfer('limited-out', 'free', 5203);
    const within = Math.abs(out.bitsPerSecond - RATE_MBPS * 1e6) / (RATE_MBPS * 1e6) < 0.25;
    // ovs-vswitchd installs the policer with tc (an ingress qdisc, a `basic` filter with a police
    // action); a kernel without cls_basic refuses it, and vswitchd logs that for this interface.
    const refused = readFileSync(world.chassis.vswitchd.logFile, 'utf8').includes(
      `${nic}: adding cls_basic policing action failed`,
    );
    process.stderr.write(
      `qos: egress_rate=${RATE_MBPS} measured ${mbps(out.bitsPerSecond)} Mbit/s` +
        `${refused ? ' (this kernel refused the policer: vswitchd logged "adding cls_basic policing action failed")' : ''}\n`,
    );
    expect(within || refused).toBe(true);
  });

  it(`ingress_rate changed on a running pod (${RATE_MBPS} to ${2 * RATE_MBPS}): the daemon follows and the transfer keeps to the new rate`, async () => {
    const vsctl = (...a: string[]) =>
      runTool('ovs-vsctl', [`--db=${world.ovsRemote}`, ...a]).then((r) => r.stdout.trim());
    await world.annotatePod('limited-in', { 'ovn.kubernetes.io/ingress_rate': String(2 * RATE_MBPS) });
    const want = String(2 * RATE_MBPS * 1e6);
    const maxRate = async () => {
      const q = await vsctl(
        '--bare',
        '--columns=other_config',
        'find',
        'Queue',
        'external_ids:iface-id=limited-in.default',
      );
      return /max-rate="?(\d+)/.exec(q)?.[1];
    };
    let seen: string | undefined;
    await pollUntil(
      async () => {
        seen = await maxRate();
        return seen === want ? true : undefined;
      },
      { timeoutMs: 10_000, onTimeout: () => new Error(`the queue's max-rate stayed ${seen}, not ${want}`) },
    );
    const r = await transfer('sender', 'limited-in', 5204);
    process.stderr.write(`qos: ingress_rate changed to ${2 * RATE_MBPS}: measured ${mbps(r.bitsPerSecond)} Mbit/s\n`);
    expect(Math.abs(r.bitsPerSecond - 2 * RATE_MBPS * 1e6) / (2 * RATE_MBPS * 1e6)).toBeLessThan(0.25);
  });
});
