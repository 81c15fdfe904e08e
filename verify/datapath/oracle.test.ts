// The datapath oracle against real OVN 23.03 / OVS 3.1: one dummy chassis, real frames.
// Topology: ls1 {vif1, vif2} ── lr0 ── ls2 {vif3}; lr0 also owns gw-ext on ext {host, localnet ln}
// (gateway port on hv1, the chassis under test). ls2 drops UDP to port 9999 (to-lport) and
// drops UDP to vif1 unless it answers vif1's own (allow-related from vif1: conntrack).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatIPv4, formatMAC, parseIPv4, parseMAC } from '../../model/addr/index.ts';
import { arpRequest, udpPacket } from '../../model/packet/build.ts';
import { plan, TopoBuilder, type Topology } from '../../model/topology/index.ts';
import { emptyTopology } from '../../model/topology/build.ts';
import { requireOvn, startControlPlane, type ControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { OvnBackend } from '../../backends/ovn/nb/index.ts';
import { DatapathOracle, oneNetworkPerLocalnet } from './oracle.ts';

const MAC = {
  vif1: '50:54:00:00:00:01',
  vif2: '50:54:00:00:00:02',
  vif3: '50:54:00:00:00:03',
  host: '50:54:00:00:00:0a',
  lrp1: '00:00:00:01:01:01',
  lrp2: '00:00:00:01:02:01',
  ext: '00:00:00:01:0f:01',
};

function topology(): Topology {
  return oneNetworkPerLocalnet(
    new TopoBuilder()
      .switch('ls1')
      .vif('vif1', 'ls1', MAC.vif1, '10.0.0.2')
      .vif('vif2', 'ls1', MAC.vif2, '10.0.0.3')
      .switch('ls2')
      .vif('vif3', 'ls2', MAC.vif3, '20.0.0.2')
      .router('lr0')
      .connect('lr0', 'ls1', MAC.lrp1, ['10.0.0.1/24'])
      .connect('lr0', 'ls2', MAC.lrp2, ['20.0.0.1/24'])
      .switch('ext')
      .vif('host', 'ext', MAC.host, '172.16.0.50')
      .port({ name: 'ln', switch: 'ext', type: 'localnet', addresses: ['unknown'], options: { network_name: 'phys' } })
      .connect('lr0', 'ext', MAC.ext, ['172.16.0.1/24'], { gatewayChassis: 'hv1' })
      .acl('ls2', 'to-lport', 1000, 'udp && udp.dst == 9999', 'drop')
      .acl('ls1', 'to-lport', 1001, 'outport == "vif1" && udp', 'drop')
      .acl('ls1', 'from-lport', 1000, 'inport == "vif1" && ip4', 'allow-related')
      .build(),
  );
}

const udp = (
  from: 'vif1' | 'vif3',
  dst: string,
  opts: { ethDst: string; ttl?: number; sport?: number; dport: number },
) =>
  udpPacket({
    ethSrc: MAC[from],
    ethDst: opts.ethDst,
    src: from === 'vif1' ? '10.0.0.2' : '20.0.0.2',
    dst,
    ttl: opts.ttl ?? 64,
    sport: opts.sport ?? 40_000,
    dport: opts.dport,
  });

describe.skipIf(!requireOvn('datapath oracle'))('datapath oracle (dummy chassis, real packets)', () => {
  let cp: ControlPlane;
  let be: OvnBackend;
  let dp: DatapathOracle;
  let sport = 41_000;
  /** A source port of its own per packet: 5-tuples are never reused (see chassis.ts). */
  const nextPort = () => sport++;

  beforeAll(async () => {
    cp = await startControlPlane();
    be = await OvnBackend.connect({ remotes: cp.nb.remote });
    const t = topology();
    await be.apply(plan(emptyTopology(), t), { label: 'datapath-test' });
    await be.waitForNorthd({ timeoutMs: 60_000 });
    dp = await DatapathOracle.start({ controlPlane: cp });
    await dp.load(t);
  });
  afterAll(async () => {
    await dp?.stop();
    await be?.close();
    await cp?.stop();
  });

  it('L2: a UDP datagram reaches the other VIF of the switch unchanged, and only it', async () => {
    const p = udp('vif1', '10.0.0.3', { ethDst: MAC.vif2, sport: nextPort(), dport: 5678 });
    const r = await dp.run({ packets: [{ inport: 'vif1', packet: p }] });
    expect(r.steps[0]!.outputs.map((o) => o.port)).toEqual(['vif2']);
    expect(r.steps[0]!.outputs[0]!.packet).toEqual(p);
  });

  it('routed: TTL decremented, source MAC the router port, destination MAC the target', async () => {
    const p = udp('vif1', '20.0.0.2', { ethDst: MAC.lrp1, sport: nextPort(), dport: 2222 });
    const r = await dp.run({ packets: [{ inport: 'vif1', packet: p }] });
    const [out] = r.steps[0]!.outputs;
    expect(r.steps[0]!.outputs).toHaveLength(1);
    expect(out!.port).toBe('vif3');
    expect(out!.packet['ip.ttl']).toBe(63);
    expect(formatMAC(out!.packet['eth.src'])).toBe(MAC.lrp2);
    expect(formatMAC(out!.packet['eth.dst'])).toBe(MAC.vif3);
    expect(formatIPv4(out!.packet['ip4.src']!)).toBe('10.0.0.2');
  });

  it('ACL drop: the to-lport drop on ls2 stops the routed datagram', async () => {
    const p = udp('vif1', '20.0.0.2', { ethDst: MAC.lrp1, sport: nextPort(), dport: 9999 });
    const r = await dp.run({ packets: [{ inport: 'vif1', packet: p }] });
    expect(r.steps[0]).toEqual({ verdict: 'dropped', outputs: [] });
  });

  it('ICMP error: TTL 1 through the router brings time-exceeded back from the router (pinctrl)', async () => {
    const p = udp('vif1', '20.0.0.2', { ethDst: MAC.lrp1, ttl: 1, sport: nextPort(), dport: 2222 });
    const r = await dp.run({ packets: [{ inport: 'vif1', packet: p }] });
    expect(r.steps[0]!.outputs).toHaveLength(1);
    const back = r.steps[0]!.outputs[0]!;
    expect(back.port).toBe('vif1');
    expect(back.packet['icmp4.type']).toBe(11);
    expect(back.packet['ip4.src']).toBe(parseIPv4('10.0.0.1'));
    expect(back.packet['eth.src']).toBe(parseMAC(MAC.lrp1));
  });

  it('ARP: the router answers for its address; an unknown next hop gets an ARP request (pinctrl)', async () => {
    const ask = arpRequest({ sha: MAC.vif1, spa: '10.0.0.2', tpa: '10.0.0.1' });
    const r = await dp.run({ packets: [{ inport: 'vif1', packet: ask }] });
    const replies = r.steps[0]!.outputs.filter((o) => o.packet['arp.op'] === 2);
    expect(replies.map((o) => o.port)).toEqual(['vif1']);
    expect(formatMAC(replies[0]!.packet['arp.sha']!)).toBe(MAC.lrp1);
    // The switch answers for the router port's address itself (ls_in_arp_rsp): the request floods nowhere.
    expect(r.steps[0]!.outputs).toHaveLength(1);

    const toUnknown = udp('vif1', '20.0.0.99', { ethDst: MAC.lrp1, sport: nextPort(), dport: 2222 });
    const r2 = await dp.run({ packets: [{ inport: 'vif1', packet: toUnknown }] });
    const req = r2.steps[0]!.outputs.find((o) => o.port === 'vif3');
    expect(req?.packet['arp.op']).toBe(1);
    expect(formatIPv4(req!.packet['arp.tpa']!)).toBe('20.0.0.99');
  });

  it('localnet: a datagram to the outside leaves by the localnet port and the host', async () => {
    const p = udp('vif1', '172.16.0.77', { ethDst: MAC.lrp1, sport: nextPort(), dport: 2222 });
    const r = await dp.run({ packets: [{ inport: 'vif1', packet: p }] });
    // An unknown outside address: the router asks for it on ext (ARP request, broadcast: localnet and host).
    const ports = r.steps[0]!.outputs.map((o) => o.port).sort();
    expect(ports).toEqual(['host', 'ln']);
    expect(r.steps[0]!.outputs.every((o) => o.packet['arp.op'] === 1)).toBe(true);
    // From the outside: the localnet port is an inport too.
    const fromOutside = udpPacket({
      ethSrc: '0a:58:cc:00:00:fe',
      ethDst: MAC.ext,
      src: '172.16.0.77',
      dst: '20.0.0.2',
      sport: nextPort(),
      dport: 2222,
    });
    const r2 = await dp.run({ packets: [{ inport: 'ln', packet: fromOutside }] });
    expect(r2.steps[0]!.outputs.map((o) => o.port)).toEqual(['vif3']);
  });

  it('conntrack from real packets: an unasked datagram to vif1 is dropped, the reply to its request passes', async () => {
    const s = nextPort();
    const reply = udpPacket({
      ethSrc: MAC.vif2,
      ethDst: MAC.vif1,
      src: '10.0.0.3',
      dst: '10.0.0.2',
      sport: 54,
      dport: s,
    });
    const request = udp('vif1', '10.0.0.3', { ethDst: MAC.vif2, sport: s, dport: 54 });
    const conn = await dp.run({ packets: [{ inport: 'vif2', packet: reply }] });
    expect(conn.steps[0]!.verdict).toBe('dropped');
    // One run: the request (from vif1, committed by the allow-related), then the same reply: ct.est.
    const s2 = nextPort();
    const req2 = udp('vif1', '10.0.0.3', { ethDst: MAC.vif2, sport: s2, dport: 54 });
    const rep2 = udpPacket({
      ethSrc: MAC.vif2,
      ethDst: MAC.vif1,
      src: '10.0.0.3',
      dst: '10.0.0.2',
      sport: 54,
      dport: s2,
    });
    const r = await dp.run({
      packets: [
        { inport: 'vif1', packet: req2 },
        { inport: 'vif2', packet: rep2 },
      ],
    });
    expect(r.steps.map((st) => st.outputs.map((o) => o.port))).toEqual([['vif2'], ['vif1']]);
    expect(request['udp.src']).toBe(s);
  });

  it('vswitchd dying (as on OVS 3.1 conntrack assertion) restarts the chassis and the run is done again', async () => {
    await dp.chassis.vswitchd.kill('SIGKILL');
    const p = udp('vif1', '20.0.0.2', { ethDst: MAC.lrp1, sport: nextPort(), dport: 2222 });
    const r = await dp.run({ packets: [{ inport: 'vif1', packet: p }] });
    expect(r.restarts).toBe(1);
    expect(r.steps[0]!.outputs.map((o) => [o.port, o.packet['ip.ttl']])).toEqual([['vif3', 63]]);
    expect(dp.restarts).toBe(1);
  });
});
