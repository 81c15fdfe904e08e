/**
 * verify/conformance: the one suite every backend runs (the Hono way).
 * A backend provides a driver (load a topology through its own `apply`, then
 * probe); the suite loads the lab and requires each probe's verdict, output
 * ports and output fields. A probe a backend cannot answer is listed in the
 * driver's `unsupported` map with the reason, and reported as skipped with
 * that reason: never silently dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan, emptyTopology, type Plan, plan, type Topology } from '../../model/topology/index.ts';
import { formatField, type FieldName, type Packet } from '../../sim/index.ts';
import type { Backend } from '../../backends/backend.ts';
import type { ProbeVerdict, Prober } from '../../backends/probe.ts';
import { CONFORMANCE_PROBES, type ConformanceProbe } from './cases.ts';
import { labTopology } from './lab.ts';

export interface ConformanceDriver {
  readonly backend: Backend & Prober;
  /** After apply: whatever the backend needs before probes see the topology (e.g. wait for northd). */
  settle?(topology: Topology): Promise<void>;
  close(): Promise<void>;
}

export interface ConformanceOptions {
  /** Probe name → why this backend cannot answer it. */
  readonly unsupported?: Readonly<Record<string, string>>;
  /** Skip the whole suite (with the reason in the title), e.g. OVN binaries missing outside CI. */
  readonly skip?: string;
}

/** The fields of `p` named in `want`, printed the way `want` spells them. */
export function pickFields(p: Packet, want: Readonly<Record<string, string>>): Record<string, string> {
  const got: Record<string, string> = {};
  for (const f of Object.keys(want)) {
    const v = p[f as FieldName];
    got[f] = v === undefined ? '<absent>' : formatField(f as FieldName, v as number | bigint);
  }
  return got;
}

/** The verdict in the expectation's shape (outputs sorted by port). */
export function describeVerdict(v: ProbeVerdict, probe: ConformanceProbe) {
  const outputs = [...v.outputs]
    .sort((a, b) => a.outport.localeCompare(b.outport))
    .map((o, i) => ({ outport: o.outport, fields: pickFields(o.packet, probe.outputs[i]?.fields ?? {}) }));
  return { verdict: v.verdict, outputs };
}

/**
 * @example
 * conformanceSuite('sim', async () => ({ backend: new SimBackend(), close: async () => {} }));
 */
export function conformanceSuite(
  name: string,
  makeDriver: () => Promise<ConformanceDriver>,
  opts: ConformanceOptions = {},
): void {
  describe.skipIf(opts.skip !== undefined)(`conformance: ${name}${opts.skip ? ` (skipped: ${opts.skip})` : ''}`, () => {
    let driver: ConformanceDriver | undefined;
    // Started in beforeAll, not while the file is collected: a skipped or filtered-out suite starts
    // nothing, and a start-up failure fails the suite's tests instead of escaping as an unhandled rejection.
    beforeAll(async () => {
      driver = await makeDriver();
      const lab = labTopology();
      await driver.backend.apply(plan(emptyTopology(), lab), { label: 'conformance lab' });
      await driver.settle?.(lab);
    });
    afterAll(async () => {
      await driver?.close();
    });
    const started = (): ConformanceDriver => {
      if (driver === undefined) throw new Error(`conformance ${name}: the driver did not start`);
      return driver;
    };

    it('reads back the lab it was given', async () => {
      const d = started();
      expect(plan(await d.backend.read(), labTopology())).toEqual([]);
    });

    for (const probe of CONFORMANCE_PROBES) {
      const reason = opts.unsupported?.[probe.name];
      it.skipIf(reason !== undefined)(`${probe.name}${reason ? ` (unsupported: ${reason})` : ''}`, async () => {
        const d = started();
        const v = await d.backend.probe({ inport: probe.inport, packet: probe.packet });
        // A verdict the backend could only partly observe is not a pass: list the probe as unsupported instead.
        expect(v.caveats ?? []).toEqual([]);
        expect(describeVerdict(v, probe)).toEqual({ verdict: probe.verdict, outputs: probe.outputs });
      });
    }

    it('membership mutates change only the members they name, and a plain plan reverts them', async () => {
      const d = started();
      const lab = labTopology();
      const outsider = [...lab.switchPort.keys()].find((k) => !lab.portGroup.get('np.web')?.ports.includes(k));
      const ops: Plan = [
        { op: 'mutate', table: 'portGroup', key: 'np.web', insert: { ports: [outsider!] } },
        {
          op: 'mutate',
          table: 'addressSet',
          key: 'np.web.ingress.allow.IPv4.0',
          delete: { addresses: ['10.0.4.3', '10.0.4.250'] },
          insert: { addresses: ['10.0.9.9', '10.0.1.2'] },
        },
        {
          op: 'mutate',
          table: 'loadBalancer',
          key: 'lb0',
          delete: { vips: ['172.30.0.100:80'] },
          insert: { vips: { '172.30.0.100:80': '10.0.0.3:8080', '172.30.0.101:80': '10.0.0.4:8080' } },
        },
        { op: 'mutate', table: 'switch', key: 'sw1', insert: { loadBalancers: ['lb0'] } },
      ];
      const want = applyPlan(ops, lab);
      await d.backend.apply(ops, { label: 'mutates' });
      const got = await d.backend.read();
      expect(plan(got, want)).toEqual([]);
      expect(got.loadBalancer.get('lb0')?.vips).toEqual({
        '172.30.0.100:80': '10.0.0.3:8080',
        '172.30.0.101:80': '10.0.0.4:8080',
      });
      expect([...(got.addressSet.get('np.web.ingress.allow.IPv4.0')?.addresses ?? [])].sort()).toEqual([
        '10.0.1.2',
        '10.0.9.9',
      ]);
      expect(got.portGroup.get('np.web')?.ports).toContain(outsider);
      await d.backend.apply(plan(got, lab), { label: 'revert' });
      expect(plan(await d.backend.read(), lab)).toEqual([]);
    });
  });
}
