/**
 * A sample of the NetworkPolicy conformance suite through real northd: the
 * network kovn's translations build for a file goes into NB, and ovn-trace
 * (over the flows northd compiled) must give each probe's first packet the
 * verdict the simulator gives it: reaching the port the probe must reach, or
 * not. Every UDP probe's verdict is the whole expectation and is checked
 * against it too. Every fifth file of the suite, first step, up to 40 probes
 * a file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, requireOvn, startControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { OvnProber } from '../../backends/ovn/prober.ts';
import { plan } from '../../model/topology/index.ts';
import { compileNetwork, probeConnection } from '../../sim/index.ts';
import { documents, files, load, type Obj, probeRequest, topologyOf } from '../netpol-suite.ts';

describe.skipIf(!requireOvn('netpol sample on ovn-trace'))('NetworkPolicy conformance sample on ovn-trace', () => {
  let cp: ControlPlane;
  let ovn: OvnProber;

  beforeAll(async () => {
    cp = await startControlPlane({});
    ovn = await OvnProber.connect({ remotes: cp.nb.remote, sbRemote: cp.sb.remote, dir: cp.dir });
  });
  afterAll(async () => {
    await ovn?.close();
    await cp?.stop();
  });

  it('ovn-trace and the simulator agree on every first packet; UDP probes meet their expectation', {
    timeout: 300_000,
  }, async () => {
    const sample = files().filter((_, i) => i % 5 === 0);
    let probes = 0;
    let udp = 0;
    const wrong: string[] = [];
    for (const file of sample) {
      const { objects, scenario } = documents(file);
      const all = load(file, objects, scenario);
      const { topology, issues } = topologyOf(all);
      expect(issues, file).toEqual([]);
      await ovn.apply(plan(await ovn.read(), topology), { label: file });
      const net = compileNetwork(topology);
      const byName = new Map(all.pods.map((p) => [`${p.ns}/${p.name}`, p]));
      // At most 40 probes a file, spread over the file's list.
      const list: Obj[] = scenario.spec.expect ?? [];
      const stride = Math.max(1, Math.ceil(list.length / 40));
      for (const e of list.filter((_, i) => i % stride === 0)) {
        probes++;
        const req = probeRequest(all, byName, e, probes);
        if (req === 'outside-to-outside') throw new Error(`${file}: a probe between two outside hosts`);
        const sim = probeConnection(net, req).forward.outputs.some((o) => o.port === req.target);
        const v = await ovn.probe({ inport: req.inport, packet: req.packet });
        const real = v.outputs.some((o) => o.outport === req.target);
        const name = `${file.split('/').slice(-2).join('/')}: ${e.from} → ${e.to} ${e.protocol}/${e.port}`;
        if (sim !== real) wrong.push(`${name}: simulator ${sim}, ovn-trace ${real}`);
        if (e.protocol === 'UDP') {
          udp++;
          if (real !== e.allowed) wrong.push(`${name}: ovn-trace ${real}, expected ${e.allowed}`);
        }
      }
    }
    console.log(`netpol sample on ovn-trace: ${sample.length} files, ${probes} first packets, ${udp} UDP probes`);
    expect(wrong.length, wrong.slice(0, 10).join('\n')).toBe(0);
    expect(probes).toBeGreaterThan(500);
    expect(udp).toBeGreaterThan(100);
  });
});
