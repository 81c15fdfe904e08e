import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packetToJSON } from '../../../model/packet/format.ts';
import { arpRequest, tcpPacket, udpPacket } from '../../../model/packet/build.ts';
import { TraceParseError } from './errors.ts';
import { flowMismatches, parseFlowLine } from './flow-line.ts';
import { normalizeVerdict } from './normalize.ts';
import { parseTrace } from './parse.ts';
import { CASES, type TraceCase } from './trace-cases.ts';
import { traceVerdict } from './verdict.ts';

const read = (name: string) => readFileSync(new URL(`./fixtures/${name}.txt`, import.meta.url), 'utf8');

/** What the tracer does with a saved text: parse, verdict (with the --lb-dst it used), normalize. */
function offline(c: TraceCase, semantics: 'ovn' | 'ovn-trace' = 'ovn') {
  const t = parseTrace(read(c.name));
  const traced = parseFlowLine(t.flow);
  const lb = c.expect.lbBackend === undefined ? {} : { lbDst: c.expect.lbBackend };
  const v = traceVerdict(t, { input: c.packet, traced, semantics, ...lb });
  return { t, ...normalizeVerdict(v, { input: c.packet, traced, stages: t.stages, ct: 'new' }) };
}

describe('verdicts of saved ovn-trace outputs (fixtures/, from tracer.test.ts runs)', () => {
  for (const c of CASES) {
    it(`${c.name}: ${c.expect.verdict}`, () => {
      const r = offline(c);
      expect(r.verdict).toBe(c.expect.verdict);
      const outs = [...r.outputs].sort((a, b) => a.outport.localeCompare(b.outport));
      expect(outs.map((o) => o.outport)).toEqual(c.expect.outputs.map((o) => o.outport));
      c.expect.outputs.forEach((want, i) => {
        expect(packetToJSON(outs[i]!.packet)).toMatchObject(want.fields);
        expect(outs[i]!.generatedBy).toBe(want.generatedBy);
      });
      expect(r.caveats.map((cv) => cv.rule)).toEqual(c.expect.caveats ?? []);
      // The traced flow is the packet asked for.
      expect(flowMismatches(c.packet, parseFlowLine(r.t.flow))).toEqual([]);
    });
  }

  it('the input packet is delivered unchanged on L2, with every field (not just those checked)', () => {
    const c = CASES.find((x) => x.name === 'l2-same-switch')!;
    const { outputs } = offline(c);
    expect(packetToJSON(outputs[0]!.packet)).toEqual(packetToJSON(c.packet));
  });

  it('semantics "ovn-trace" keeps ovn-trace\'s own seeds for generated packets', () => {
    const tcpReject = offline(CASES.find((x) => x.name === 'acl-reject-tcp')!, 'ovn-trace');
    expect(packetToJSON(tcpReject.outputs[0]!.packet)).toMatchObject({
      'tcp.src': '40000',
      'tcp.dst': '23',
      'tcp.flags': '0x4',
      'ip.ttl': '255',
    });
    const udpReject = offline(CASES.find((x) => x.name === 'acl-reject-udp')!, 'ovn-trace');
    expect(packetToJSON(udpReject.outputs[0]!.packet)).toMatchObject({ 'icmp4.type': '3', 'icmp4.code': '1' });
    const ns = offline(CASES.find((x) => x.name === 'nd-ns-for-unknown-nexthop')!, 'ovn-trace');
    expect(packetToJSON(ns.outputs[0]!.packet)).toMatchObject({
      'ip6.src': 'fd00::2',
      'ip6.dst': 'fd01::9',
      'nd.target': 'fd01::9',
      'nd.sll': '00:00:00:00:00:00',
    });
  });

  it('records the quirks met: generated packets, the gateway ct_snat stop, the --lb-dst early DNAT', () => {
    expect(offline(CASES.find((x) => x.name === 'ttl-exceeded')!).quirks.map((q) => q.rule)).toEqual([
      'generated-packets',
    ]);
    const stop = offline(CASES.find((x) => x.name === 'gw-snat-ip-inbound')!);
    expect(stop.ends.map((e) => e.kind)).toEqual(['ct-snat-stop']);
    expect(stop.ends[0]!.datapath).toBe('gw');
    const lb = offline(CASES.find((x) => x.name === 'lb-vip-chosen-backend')!);
    expect(lb.quirks.filter((q) => q.rule === 'lb-dst-early-dnat').length).toBeGreaterThanOrEqual(1);
    expect(lb.caveats).toEqual([]);
  });

  it('multicast: each member of _MC_flood is its own output; the router member ends in a drop', () => {
    const r = offline(CASES.find((x) => x.name === 'broadcast-flood')!);
    expect(r.ends.map((e) => e.kind).sort()).toEqual(['drop', 'loopback']);
    expect(r.outputs.every((o) => o.datapath === 'sw0' && o.type === '')).toBe(true);
  });

  it('a random ct_lb without a matching --lb-dst is an error naming the line, never a guess', () => {
    const c = CASES.find((x) => x.name === 'lb-vip-default-backend')!;
    // ls_in_lb as ovn-trace prints it without --lb-dst: one of two backends, chosen at random and not printed.
    const random = [
      '# tcp,reg14=0x1,vlan_tci=0x0000,dl_src=00:00:00:00:00:01,dl_dst=00:00:00:00:ff:00,nw_src=10.0.0.2,nw_dst=172.30.0.100,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=40000,tp_dst=80,tcp_flags=syn',
      '',
      'ingress(dp="sw0", inport="p1")',
      '------------------------------',
      '12. ls_in_lb (northd.c:7558): ct.new && ip4.dst == 172.30.0.100 && tcp.dst == 80, priority 120, uuid dc71b042',
      '    reg0[1] = 0;',
      '    ct_lb_mark(backends=10.0.0.3:8080,10.0.0.4:8080);',
      '',
      'ct_lb_mark',
      '----------',
      '25. ls_in_l2_lkup (northd.c:9193): eth.dst == 00:00:00:00:ff:00, priority 50, uuid f0f69e2b',
      '    outport = "sw0-lr0";',
      '    output;',
    ].join('\n');
    const rt = parseTrace(random);
    const err = (() => {
      try {
        traceVerdict(rt, { input: c.packet, traced: parseFlowLine(rt.flow) });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(TraceParseError);
    expect((err as TraceParseError).code).toBe('lb-backend-unknown');
    expect((err as TraceParseError).line).toBe(9);
    const chosen = traceVerdict(rt, { input: c.packet, traced: parseFlowLine(rt.flow), lbDst: '10.0.0.4' });
    expect(chosen.lbChoices).toEqual([{ backend: '10.0.0.4:8080', line: 9 }]);
  });

  it('DSCP/ECN that ovn-trace dropped from the microflow are restored on outputs, with a caveat', () => {
    const c = CASES.find((x) => x.name === 'routed')!;
    const input = { ...c.packet, 'ip.dscp': 10, 'ip.ecn': 1 } as typeof c.packet;
    const t = parseTrace(read('routed'));
    const traced = parseFlowLine(t.flow);
    const n = normalizeVerdict(traceVerdict(t, { input, traced }), { input, traced, stages: t.stages, ct: 'new' });
    expect(n.outputs[0]!.packet['ip.dscp']).toBe(10);
    expect(n.caveats.map((x) => x.rule)).toEqual(['microflow-dscp-ecn-ignored']);
  });

  it('replies (ct est) through NAT get the no-unnat caveat', () => {
    const c = CASES.find((x) => x.name === 'gw-dnat-inbound')!;
    const t = parseTrace(read(c.name));
    const traced = parseFlowLine(t.flow);
    const n = normalizeVerdict(traceVerdict(t, { input: c.packet, traced }), {
      input: c.packet,
      traced,
      stages: t.stages,
      ct: 'est,rpl',
    });
    expect(n.caveats.map((x) => x.rule)).toContain('no-unnat');
  });

  it('a packet field loaded from a register the text does not show is an error', () => {
    const text = [
      '# udp,reg14=0x1,vlan_tci=0x0000,dl_src=00:00:00:00:00:01,dl_dst=00:00:00:00:00:02,nw_src=10.0.0.2,nw_dst=10.0.0.3,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1,tp_dst=2',
      '',
      'ingress(dp="sw0", inport="p1")',
      '------------------------------',
      ' 0. ls_in_check_port_sec (northd.c:8432): 1, priority 50, uuid 335db7e0',
      '    reg0[15] = check_in_port_sec();',
      '    ip4.src = reg0;',
      '    output;',
    ].join('\n');
    const t = parseTrace(text);
    const p = udpPacket({ ethSrc: 1, ethDst: 2, src: '10.0.0.2', dst: '10.0.0.3', sport: 1, dport: 2 });
    expect(() => traceVerdict(t, { input: p, traced: parseFlowLine(t.flow) })).toThrow(
      /ip4.src loaded from a value the trace does not show/,
    );
  });

  it('reject of an ARP frame: ovn-trace seeds an ICMPv6 from :: to ::; pinctrl sends nothing (semantics "ovn")', () => {
    // Real ovn-trace 23.03 output: a from-lport `arp` reject ACL on a switch without stateful ACLs.
    const text = [
      '# arp,reg14=0x1,vlan_tci=0x0000,dl_src=0a:00:00:00:01:10,dl_dst=ff:ff:ff:ff:ff:ff,arp_spa=10.0.1.10,arp_tpa=10.0.1.11,arp_op=1,arp_sha=0a:00:00:00:01:10,arp_tha=00:00:00:00:00:00',
      '',
      'ingress(dp="lsB", inport="b0")',
      '------------------------------',
      ' 0. ls_in_check_port_sec (northd.c:8432): 1, priority 50, uuid 6e86bb93',
      '    reg0[15] = check_in_port_sec();',
      '    next;',
      ' 5. ls_in_pre_lb (northd.c:6033): eth.mcast, priority 110, uuid 5c5c5e7f',
      '    next;',
      ' 8. ls_in_acl (northd.c:6365): arp, priority 1005, uuid 9ea2920c',
      '    reg0 = 0;',
      '    reject { outport <-> inport; next(pipeline=egress, table=5); };',
      '',
      'icmp6',
      '-----',
      '    outport <-> inport;',
      '    next(pipeline=egress, table=5);',
      '',
      'egress(dp="lsB", outport="b0")',
      '------------------------------',
      ' 8. ls_out_check_port_sec (northd.c:5772): 1, priority 0, uuid 72b5ecd1',
      '    reg0[15] = check_out_port_sec();',
      '    next;',
      ' 9. ls_out_apply_port_sec (northd.c:5777): 1, priority 0, uuid 6f91c4f2',
      '    output;',
      '    /* output to "b0", type "" */',
    ].join('\n');
    const t = parseTrace(text);
    const traced = parseFlowLine(t.flow);
    const input = arpRequest({ sha: '0a:00:00:00:01:10', spa: '10.0.1.10', tpa: '10.0.1.11' });
    const raw = traceVerdict(t, { input, traced, semantics: 'ovn-trace' });
    expect(raw.outputs.map((o) => [o.outport, o.generatedBy])).toEqual([['b0', 'reject/icmp6']]);
    expect(packetToJSON(raw.outputs[0]!.packet)).toMatchObject({
      'ip6.src': '::',
      'ip6.dst': '::',
      'icmp6.type': '1',
      'icmp6.code': '1',
    });
    const real = traceVerdict(t, { input, traced });
    expect(real.verdict).toBe('dropped');
    expect(real.outputs).toEqual([]);
    expect(real.quirks.find((q) => q.rule === 'generated-packets')?.detail).toContain('non-IP frame');
  });
});

describe('rule ttl-underflow-continues on TTL 1 (fixtures/dgp-snat-loopback-ttl1.txt, real ovn-trace 23.03)', () => {
  // pod0.ls0 (10.16.0.10) sends TTL 2 to its own DNAT address 172.20.0.100 on a router with a distributed
  // gateway port and SNAT 10.16.0.0/24 -> 172.20.0.101: routed (TTL 1), SNATed, looped back by
  // lr_out_egr_loop; lr_in_ip_input's priority-120 flow for the SNAT source skips the TTL check, so the
  // routing stage's ip.ttl-- meets TTL 1.
  const t = parseTrace(read('dgp-snat-loopback-ttl1'));
  const input = tcpPacket({
    ethSrc: '0a:58:0a:00:00:10',
    ethDst: '0a:00:00:00:00:01',
    src: '10.16.0.10',
    dst: '172.20.0.100',
    sport: 1024,
    dport: 80,
    ttl: 2,
  });
  const traced = parseFlowLine(t.flow);

  it('ovn-trace itself delivers the packet to pod0.ls0 with TTL 0', () => {
    const v = traceVerdict(t, { input, traced, semantics: 'ovn-trace' });
    expect(v.outputs.map((o) => [o.outport, o.packet['ip.ttl'], packetToJSON(o.packet)['ip4.src']])).toEqual([
      ['pod0.ls0', 0, '172.20.0.101'],
    ]);
  });

  it('OVN (OVS dec_ttl) forwards nothing: the branch ends at that ip.ttl--', () => {
    const v = traceVerdict(t, { input, traced });
    expect(v.outputs).toEqual([]);
    expect(v.ends.map((e) => [e.kind, e.datapath, e.text])).toContainEqual(['ttl-underflow', 'lr0', 'ip.ttl--;']);
    expect(v.quirks.map((q) => q.rule)).toContain('ttl-underflow-continues');
  });
});
