import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateMatch, packetFromRecord, parseMatch, type MatchFieldValues } from '../../../model/match/index.ts';
import { tcpPacket } from '../../../model/packet/build.ts';
import type { Packet } from '../../../model/packet/packet.ts';
import { fcParams } from '../../../test/fc.ts';
import {
  requireOvn,
  runTool,
  startControlPlane,
  startOvnTrace,
  type ControlPlane,
  type OvnTraceDaemon,
} from '../control-plane/index.ts';
import { packetArbitrary } from './arbitrary.ts';
import { flowMismatches, parseFlowLine } from './flow-line.ts';
import { microflowFor, toMicroflow } from './microflow.ts';

function matchFields(p: Packet): MatchFieldValues {
  const { inner: _i, 'icmp.id': _id, ...fields } = p;
  return fields as MatchFieldValues;
}

// The writer lives in model/packet/format.ts (its unit tests are in format.test.ts there);
// these check it over every packet kind and against real ovn-trace, through this folder's re-export.
describe('microflowFor', () => {
  it('property: the microflow parses with model/match and the packet matches it', () => {
    fc.assert(
      fc.property(packetArbitrary(), (p) => {
        const mf = microflowFor(p, 'p1');
        const expr = parseMatch(mf.text);
        expect(evaluateMatch(expr, packetFromRecord({ inport: 'p1', fields: matchFields(p) }))).toBe(true);
        expect(mf.omitted.every((f) => f === 'inner' || f === 'icmp.id' || f.startsWith('nd.'))).toBe(true);
      }),
      fcParams(500),
    );
  });
});

describe.skipIf(!requireOvn('ovn-trace microflows'))('microflows against real ovn-trace', () => {
  let cp: ControlPlane;
  let daemon: OvnTraceDaemon;

  beforeAll(async () => {
    cp = await startControlPlane();
    await runTool('ovn-nbctl', [`--db=${cp.nb.remote}`, '--wait=sb', 'ls-add', 'ls', '--', 'lsp-add', 'ls', 'p1']);
    daemon = await startOvnTrace({ dir: cp.dir, sbRemote: cp.sb.remote });
  });
  afterAll(async () => {
    await daemon?.stop();
    await cp?.stop();
  });

  it('property: ovn-trace accepts every microflow and traces exactly the packet (its flow line reads back to it)', async () => {
    // DSCP/ECN are left at 0 (ovn-trace ignores them: normalize.ts microflow-dscp-ecn-ignored), and
    // later fragments out (OVS flows of later fragments have no L4 fields).
    await fc.assert(
      fc.asyncProperty(packetArbitrary({ dscp: false, laterFragments: false }), async (p) => {
        const text = await daemon.trace({ datapath: 'ls', microflow: toMicroflow(p, 'p1'), extraArgs: ['--minimal'] });
        const traced = parseFlowLine(text.split('\n')[0] ?? '');
        expect(flowMismatches(p, traced)).toEqual([]);
      }),
      fcParams(60),
    );
  });

  it('ovn-trace drops ip.dscp and ip.ecn from a microflow (the quirk the tracer reports)', async () => {
    const p = {
      ...tcpPacket({ ethSrc: 1, ethDst: 2, src: '10.0.0.1', dst: '10.0.0.2', sport: 1, dport: 2, dscp: 10 }),
      'ip.ecn': 2,
    } as Packet;
    const text = await daemon.trace({ datapath: 'ls', microflow: toMicroflow(p, 'p1'), extraArgs: ['--minimal'] });
    expect(flowMismatches(p, parseFlowLine(text.split('\n')[0] ?? ''))).toEqual(['ip.dscp', 'ip.ecn']);
  });
});
