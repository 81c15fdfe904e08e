// The egress scenarios cannot pass by accident: each feature removed from the
// scenario's objects (on the simulator) flips a probe of it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LoadedObject, type LoadedScenario, loadScenario } from './load.ts';
import { runScenario, SimWorld } from './run.ts';

type Doc = Record<string, Record<string, unknown>>;

/** The scenario with `edit` applied to the named object (top level and steps). */
function edited(file: string, kind: string, name: string, edit: (o: Doc) => void): LoadedScenario {
  const s = loadScenario(join(import.meta.dirname, file));
  const fix = (o: LoadedObject): LoadedObject => {
    const doc = o.object as Doc;
    if (o.kind !== kind || doc.metadata?.name !== name) return o;
    const copy = structuredClone(doc);
    edit(copy);
    return { ...o, object: copy };
  };
  return { ...s, objects: s.objects.map(fix), steps: s.steps.map((st) => ({ ...st, apply: st.apply.map(fix) })) };
}

async function failing(s: LoadedScenario) {
  const world = new SimWorld();
  const r = await runScenario(s, { world }).finally(() => world.close());
  return r.results
    .filter((x) => !x.ok)
    .map((x) => `${x.step} ${x.from} -> ${x.to} ${x.protocol} expected ${x.expected ? 'allowed' : 'denied'}`);
}

describe('egress scenarios flip without their feature', () => {
  it('centralized-gateway: node-2 staying Ready keeps billing on node-2 (primary-backup follows readiness)', async () => {
    const s = edited('centralized-gateway.yaml', 'Node', 'node-2', (o) => {
      delete o.status;
    });
    expect(await failing(s)).toEqual([
      '1 billing/invoicer -> 203.0.113.10 TCP expected allowed',
      '1 billing/invoicer -> 203.0.113.10 TCP expected denied',
      '2 billing/invoicer -> 203.0.113.10 TCP expected allowed',
      '2 billing/invoicer -> 203.0.113.10 TCP expected denied',
    ]);
  });

  it('centralized-gateway: without gatewayNodeSelectors batch has no gateway', async () => {
    const s = edited('centralized-gateway.yaml', 'Subnet', 'batch', (o) => {
      delete o.spec?.gatewayNodeSelectors;
    });
    expect(await failing(s)).toEqual([
      '0 batch/cron -> 198.51.100.7 UDP expected allowed',
      '1 batch/cron -> 198.51.100.7 UDP expected allowed',
    ]);
  });

  it('centralized-gateway: with node-2 listed alone, no backup takes over', async () => {
    const s = edited('centralized-gateway.yaml', 'Subnet', 'billing', (o) => {
      (o.spec as Record<string, unknown>).gatewayNode = 'node-2';
    });
    expect(await failing(s)).toEqual([
      '1 billing/invoicer -> 203.0.113.10 TCP expected allowed',
      '1 billing/invoicer -> 203.0.113.10 TCP expected denied',
      '2 billing/invoicer -> 203.0.113.10 TCP expected allowed',
      '2 billing/invoicer -> 203.0.113.10 TCP expected denied',
    ]);
  });

  it('nat-outgoing-policy: without the rules edge masquerades everything; without the nat rule the forward one wins', async () => {
    const none = edited('nat-outgoing-policy.yaml', 'Subnet', 'edge', (o) => {
      delete o.spec?.natOutgoingPolicyRules;
    });
    expect(await failing(none)).toEqual([
      '0 edge/app -> 192.0.2.9 TCP expected allowed',
      '0 edge/app -> 192.0.2.9 TCP expected denied',
      '0 edge/app -> 192.0.2.7 UDP expected allowed',
      '0 edge/batch -> 192.0.2.9 ICMP expected allowed',
    ]);
    const forwardOnly = edited('nat-outgoing-policy.yaml', 'Subnet', 'edge', (o) => {
      (o.spec as Record<string, unknown[]>).natOutgoingPolicyRules?.splice(1, 1);
    });
    expect(await failing(forwardOnly)).toEqual([
      '0 edge/batch -> 192.0.2.7 UDP expected allowed',
      '0 edge/batch -> 192.0.2.7 UDP expected denied',
    ]);
  });

  it('ip-family: without the annotation v6only has an IPv4 address', async () => {
    const s = edited('ip-family.yaml', 'Pod', 'v6only', (o) => {
      delete o.metadata?.annotations;
    });
    expect(await failing(s)).toEqual([
      '0 mixed/v6only -> mixed/v4only TCP expected denied',
      '0 mixed/v4only -> mixed/v6only UDP expected denied',
      '0 mixed/v6only -> 10.71.0.1 ICMP expected denied',
    ]);
  });

  it('pod-placement: each placement field removed moves its pod (or leaves it pending)', async () => {
    const without = (name: string, edit: (spec: Record<string, unknown>) => void) =>
      failing(
        edited('pod-placement.yaml', 'Pod', name, (o) => {
          edit(o.spec as Record<string, unknown>);
        }),
      );
    expect(
      await without('pinned', (s) => {
        s.nodeName = 'node-2';
      }),
    ).toEqual([
      '0 default/pinned -> 203.0.113.20 TCP expected allowed',
      '0 default/pinned -> 203.0.113.20 TCP expected denied',
    ]);
    expect(
      await without('cache', (s) => {
        delete s.nodeSelector;
      }),
    ).toEqual([
      '0 default/cache -> 203.0.113.20 TCP expected allowed',
      '0 default/cache -> 203.0.113.20 TCP expected denied',
    ]);
    expect(
      await without('db', (s) => {
        delete s.tolerations;
      }),
    ).toEqual([
      '0 default/db -> 203.0.113.20 UDP expected allowed',
      '0 default/worker -> default/db TCP expected allowed',
    ]);
    expect(
      await without('worker', (s) => {
        delete s.affinity;
      }),
    ).toEqual(['0 default/worker -> 203.0.113.20 ICMP expected allowed']);
  });

  it('external-egress-gateway: legacy masquerading instead (natOutgoing, no gateway) flips its snat probes', async () => {
    const s = edited('external-egress-gateway.yaml', 'Subnet', 'legacy', (o) => {
      const spec = o.spec as Record<string, unknown>;
      delete spec.externalEgressGateway;
      spec.natOutgoing = true;
    });
    expect(await failing(s)).toEqual([
      '0 legacy/app -> 198.51.100.30 TCP expected allowed',
      '0 legacy/app -> 198.51.100.30 TCP expected denied',
    ]);
  });
});
