import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ndNs, tcpPacket } from '../../../model/packet/build.ts';
import { packetToJSON } from '../../../model/packet/format.ts';
import { requireOvn, runTool, startControlPlane, type ControlPlane } from '../control-plane/index.ts';
import { OvnTracerError } from './errors.ts';
import { CASES, TOPOLOGY, type TraceCase } from './trace-cases.ts';
import { OvnTracer, type OvnTraceResult } from './tracer.ts';

const UPDATE = process.env.KOVN_UPDATE_TRACE_FIXTURES === '1';
const fixture = (name: string) => new URL(`./fixtures/${name}.txt`, import.meta.url);

/** Running (a zombie is not: detached daemons are reaped by init, which may be slow to do it). */
function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

/** The expectations of a case, checked against a result (also used offline: verdict.test.ts). */
function checkCase(
  c: TraceCase,
  r: Pick<OvnTraceResult, 'verdict' | 'outputs' | 'caveats'> & { lbBackend?: string },
): void {
  expect(r.verdict).toBe(c.expect.verdict);
  const outputs = [...r.outputs].sort((a, b) => a.outport.localeCompare(b.outport));
  expect(outputs.map((o) => o.outport)).toEqual(c.expect.outputs.map((o) => o.outport));
  c.expect.outputs.forEach((want, i) => {
    const got = outputs[i];
    expect(packetToJSON(got!.packet)).toMatchObject(want.fields);
    expect(got!.generatedBy).toBe(want.generatedBy);
  });
  expect(r.caveats.map((cv) => cv.rule)).toEqual(c.expect.caveats ?? []);
  expect(r.lbBackend).toBe(c.expect.lbBackend);
}

describe.skipIf(!requireOvn('ovn-trace tracer'))('OvnTracer against real OVN 23.03', () => {
  let cp: ControlPlane;
  let tracer: OvnTracer;
  const nbctl = (...args: string[]) => runTool('ovn-nbctl', [`--db=${cp.nb.remote}`, ...args]);

  beforeAll(async () => {
    cp = await startControlPlane();
    await nbctl(...TOPOLOGY.flatMap((c, i) => (i === 0 ? [...c] : ['--', ...c])));
    await nbctl('--timeout=30', '--wait=sb', 'sync');
    tracer = await OvnTracer.start({ dir: cp.dir, sbRemote: cp.sb.remote });
  });
  afterAll(async () => {
    const pids = tracer?.pids ?? [];
    await tracer?.stop();
    for (const pid of pids) expect(pidAlive(pid)).toBe(false);
    await cp?.stop();
  });

  for (const c of CASES) {
    it(`${c.name}: ${c.expect.verdict}${c.expect.outputs.length ? ` to ${c.expect.outputs.map((o) => o.outport).join(', ')}` : ''}`, async () => {
      const r = await tracer.trace({
        datapath: c.datapath,
        inport: c.inport,
        packet: c.packet,
        ...(c.lbBackend ? { lbBackend: c.lbBackend } : {}),
      });
      if (UPDATE) writeFileSync(fixture(c.name), r.raw);
      checkCase(c, r);
      // Every ct action of a first packet saw ct.new (the --ct=new daemon never ran out).
      expect(r.raw).not.toContain('default (use --ct to customize)');
      expect(r.stages.length).toBeGreaterThan(0);
    });
  }

  it('a load-balanced packet is traced twice: daemon for the exact path, one-shot with --lb-dst', async () => {
    const before = { ...tracer.stats };
    const c = CASES.find((x) => x.name === 'lb-vip-chosen-backend')!;
    const r = await tracer.trace({
      datapath: c.datapath,
      inport: c.inport,
      packet: c.packet,
      lbBackend: '10.0.0.3:8080',
    });
    expect(r.via).toBe('one-shot');
    expect(r.outputs.map((o) => o.outport)).toEqual(['p2']);
    expect(tracer.stats.daemonTraces).toBe(before.daemonTraces + 1);
    expect(tracer.stats.oneShotTraces).toBe(before.oneShotTraces + 1);
    expect(r.quirks.map((q) => q.rule)).toContain('lb-dst-early-dnat');
  });

  it('an NS for a router address aborts ovn-trace 23.03 (nd_na_router): a typed error, and the daemon comes back', async () => {
    const ns = ndNs({ ethSrc: '00:00:00:00:00:01', src: 'fd00::2', target: 'fd00::1' });
    const pid = tracer.pids[0];
    const err = await tracer.trace({ datapath: 'sw0', inport: 'p1', packet: ns }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OvnTracerError);
    expect((err as OvnTracerError).code).toBe('ovn-trace-aborted');
    expect(tracer.pids[0]).not.toBe(pid);
    const c = CASES[0]!;
    expect((await tracer.trace({ datapath: c.datapath, inport: c.inport, packet: c.packet })).verdict).toBe(
      'delivered',
    );
  });

  it('ct states other than new: a uniform state gets its own daemon, a list goes one-shot', async () => {
    const syn22 = tcpPacket({
      ethSrc: '00:00:00:00:02:01',
      ethDst: '00:00:00:00:02:02',
      src: '10.0.2.2',
      dst: '10.0.2.3',
      sport: 1,
      dport: 22,
    });
    const est = await tracer.trace({ datapath: 'sw2', inport: 'a1', packet: syn22, ct: 'est' });
    expect(est.via).toBe('daemon');
    expect(est.raw).toContain('ct_next(ct_state=est|trk)');
    expect(est.verdict).toBe('dropped'); // a drop ACL on an established connection marks it blocked
    const list = await tracer.trace({
      datapath: 'sw2',
      inport: 'a1',
      packet: { ...syn22, 'tcp.dst': 80 },
      ct: ['new'],
    });
    expect(list.via).toBe('one-shot');
    expect(list.raw).toContain('ct_next(ct_state=new|trk)');
    expect(list.raw).toContain('default (use --ct to customize)'); // the egress ct action: ovn-trace's default
    expect(tracer.pids.length).toBe(2);
  });

  it('a small ct budget: the daemon is restarted before it runs out, and every ct action still sees new', async () => {
    const small = await OvnTracer.start({ dir: cp.dir, sbRemote: cp.sb.remote, ctBudget: 8 });
    try {
      const c = CASES.find((x) => x.name === 'acl-allow-related')!;
      for (let i = 0; i < 6; i++) {
        const r = await small.trace({ datapath: c.datapath, inport: c.inport, packet: c.packet });
        expect(r.raw).not.toContain('default (use --ct to customize)');
        expect(r.verdict).toBe('delivered');
      }
      expect(small.stats.daemonStarts).toBeGreaterThan(1);
    } finally {
      await small.stop();
    }
  });

  it('reload() makes the daemons read southbound changes', async () => {
    await nbctl('--wait=sb', 'lsp-add', 'sw0', 'p9', '--', 'lsp-set-addresses', 'p9', '00:00:00:00:00:09 10.0.0.9');
    await tracer.reload();
    const p = tcpPacket({
      ethSrc: '00:00:00:00:00:09',
      ethDst: '00:00:00:00:00:02',
      src: '10.0.0.9',
      dst: '10.0.0.3',
      sport: 1,
      dport: 80,
    });
    const r = await tracer.trace({ datapath: 'sw0', inport: 'p9', packet: p });
    expect(r.outputs.map((o) => o.outport)).toEqual(['p2']);
  });

  it('--lb-dst that changes an ACL decision before the load balancer is detected (lb-dst-early-dnat)', async () => {
    await nbctl(
      'ls-add',
      'sw4',
      '--',
      'lsp-add',
      'sw4',
      'b1',
      '--',
      'lsp-set-addresses',
      'b1',
      '00:00:00:00:04:02 10.0.4.2',
      '--',
      'lsp-add',
      'sw4',
      'b2',
      '--',
      'lsp-set-addresses',
      'b2',
      '00:00:00:00:04:03 10.0.4.3',
      '--',
      'lsp-add',
      'sw4',
      'b3',
      '--',
      'lsp-set-addresses',
      'b3',
      '00:00:00:00:04:04 10.0.4.4',
      '--',
      'lb-add',
      'lb4',
      '192.168.4.100:80',
      '10.0.4.3:80,10.0.4.4:80',
      'tcp',
      '--',
      'ls-lb-add',
      'sw4',
      'lb4',
      '--',
      'acl-add',
      'sw4',
      'from-lport',
      '1001',
      'ip4.dst == 10.0.4.4',
      'drop',
    );
    await nbctl('--timeout=30', '--wait=sb', 'sync');
    await tracer.reload();
    const p = tcpPacket({
      ethSrc: '00:00:00:00:04:02',
      ethDst: '00:00:00:00:04:04',
      src: '10.0.4.2',
      dst: '192.168.4.100',
      sport: 1,
      dport: 80,
    });
    // In OVN the ACL sees the VIP and allows; ovn-trace with --lb-dst=10.0.4.4 DNATs first and the ACL drops.
    const err = await tracer
      .trace({ datapath: 'sw4', inport: 'b1', packet: p, lbBackend: '10.0.4.4:80' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OvnTracerError);
    expect((err as OvnTracerError).code).toBe('lb-dst-diverged');
    expect((err as OvnTracerError).message).toContain('ls_in_acl');
    const ok = await tracer.trace({ datapath: 'sw4', inport: 'b1', packet: p, lbBackend: '10.0.4.3:80' });
    expect(ok.verdict).toBe('delivered');
    expect(packetToJSON(ok.outputs[0]!.packet)).toMatchObject({ 'ip4.dst': '10.0.4.3', 'tcp.dst': '80' });
  });

  it("a gateway router's bare ct_snat is traced through over an SB copy with its l3gateway ports as patches", async () => {
    const c = CASES.find((x) => x.name === 'gw-snat-ip-inbound')!;
    const req = { datapath: c.datapath, inport: c.inport, packet: c.packet };
    const stopped = await tracer.trace(req);
    expect(stopped.ends.map((e) => e.kind)).toContain('ct-snat-stop');
    const pids = tracer.pids;
    const through = await tracer.traceGatewaysAsPatches(req);
    // The same flows up to the ct_snat, then on past it: routed out of gw-ext (an ARP for the address).
    const stop = stopped.stages.findIndex((st) => st.datapath === 'gw' && st.actions.includes('ct_snat;'));
    expect(stop).toBeGreaterThan(0);
    expect(through.stages.slice(0, stop + 1).map((st) => st.uuid)).toEqual(
      stopped.stages.slice(0, stop + 1).map((st) => st.uuid),
    );
    expect(through.ends.map((e) => e.kind)).not.toContain('ct-snat-stop');
    expect(through.stages.some((st) => st.datapath === 'gw' && st.stage === 'lr_in_ip_routing')).toBe(true);
    expect(through.raw).toContain('assuming no un-snat entry');
    // The copy, its server and its daemons are gone; the real SB still has the gateway.
    expect(tracer.pids).toEqual(pids);
    expect(readdirSync(cp.dir).filter((f) => f.includes('-gw.db'))).toEqual([]);
    const again = await tracer.trace(req);
    expect(again.ends.map((e) => e.kind)).toContain('ct-snat-stop');
  });
});
