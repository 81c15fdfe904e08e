import { describe, expect, it } from 'vitest';
import { compileNetwork } from './compile/network.ts';
import { MAC, twoSubnets } from '../model/topology/index.ts';
import { icmpEcho } from '../model/packet/build.ts';
import { formatResult, resultToJSON } from './result.ts';
import { simulate } from './simulate.ts';

describe('result forms', () => {
  const net = compileNetwork(twoSubnets().acl('sw2', 'to-lport', 1000, 'icmp4', 'drop', { name: 'no-ping' }).build());

  it('JSON: verdict, outport, printable packets and stages', () => {
    const r = simulate(net, {
      inport: 'p1',
      packet: icmpEcho({ ethSrc: MAC.p1, ethDst: MAC.p2, src: '10.0.1.11', dst: '10.0.1.12' }),
    });
    const j = JSON.parse(JSON.stringify(resultToJSON(r))) as {
      verdict: string;
      outport: string;
      outputs: { packet: Record<string, string> }[];
      stages: { stage: string }[];
    };
    expect(j.verdict).toBe('delivered');
    expect(j.outport).toBe('p2');
    expect(j.outputs[0]!.packet['ip4.dst']).toBe('10.0.1.12');
    expect(j.stages.map((s) => s.stage)).toContain('ls_in_l2_lkup');
  });

  it('text: the trace and the drop', () => {
    const r = simulate(net, {
      inport: 'p1',
      packet: icmpEcho({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: '10.0.1.11', dst: '10.0.2.11' }),
    });
    const text = formatResult(r);
    expect(text).toContain('ingress(dp="r1", inport="r1-sw1")');
    expect(text).toContain('acl "no-ping"');
    expect(text).toContain('dropped in sw2 ls_out_acl');
  });

  it('a trace-less run gives the same verdict and outputs', () => {
    const p = icmpEcho({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: '10.0.1.11', dst: '10.0.2.11' });
    const full = simulate(net, { inport: 'p1', packet: p });
    const bare = simulate(net, { inport: 'p1', packet: p, trace: false });
    expect(bare.verdict).toBe(full.verdict);
    expect(bare.outputs).toEqual(full.outputs);
    expect(bare.drop?.stage).toBe(full.drop?.stage);
    expect(bare.stages).toEqual([]);
  });
});
