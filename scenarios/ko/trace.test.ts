import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvn, runTool } from '../../backends/ovn/control-plane/index.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { loadScenario } from '../load.ts';
import { sessionAffinityScenario } from '../session-affinity.fixture.ts';
import { koTrace } from './trace.ts';
import { type LiveCluster, startLive } from './testing/live.ts';

const QUICKSTART = 'scenarios/quickstart.yaml';

describe.skipIf(!requireOvn('kovn ko trace'))(
  'ovn-trace over the live SB beside the simulator over the objects',
  () => {
    let live: LiveCluster;
    beforeAll(async () => {
      live = await startLive(QUICKSTART, { northd: true });
    });
    afterAll(async () => {
      await live?.stop();
    });

    const opts = () => ({ cluster: live.cluster, nb: live.cp.nb.remote, sb: live.cp.sb.remote, clock: realClock });

    it("agrees on both sides for the quickstart's pod pairs, each as the scenario expects", async () => {
      const pairs = loadScenario(QUICKSTART).expect.filter((e) => !e.to.startsWith('svc/') && e.to.includes('/'));
      expect(pairs.length).toBeGreaterThanOrEqual(4);
      for (const probe of pairs) {
        const t = await koTrace(probe, opts());
        expect({
          probe: `${probe.from} -> ${probe.to}`,
          sim: t.sim.allowed,
          ovn: t.ovn.allowed,
          agree: t.agree,
        }).toEqual({ probe: `${probe.from} -> ${probe.to}`, sim: probe.allowed, ovn: probe.allowed, agree: true });
        expect(t.ovn.text).toContain('ingress(dp=');
        expect(t.sim.trace?.stages.length).toBeGreaterThan(0);
      }
    });

    it('disagrees where the live NB lost what the objects call for', async () => {
      const probe = {
        from: 'shop/web-9jwrnlsw9q-hl97j',
        to: 'data/db-0',
        protocol: 'TCP' as const,
        port: 5432,
        allowed: true,
      };
      // The policy's allow ACL deleted by hand: NB drops what the objects allow.
      const { stdout } = await runTool('ovn-nbctl', [
        `--db=${live.cp.nb.remote}`,
        '--bare',
        '--columns=_uuid',
        'find',
        'acl',
        'priority=2001',
        'direction=to-lport',
      ]);
      const acls = stdout.split('\n').filter(Boolean);
      expect(acls.length).toBeGreaterThan(0);
      for (const uuid of acls)
        await runTool('ovn-nbctl', [
          `--db=${live.cp.nb.remote}`,
          'remove',
          'port_group',
          'db.from.web.data',
          'acls',
          uuid,
        ]);
      const t = await koTrace(probe, opts());
      expect(t.sim.allowed).toBe(true);
      expect(t.ovn.allowed).toBe(false);
      expect(t.agree).toBe(false);
    });
  },
);

describe.skipIf(!requireOvn('kovn ko trace, affinity'))('a first packet an affinity learn flow dropped', () => {
  let live: LiveCluster;
  beforeAll(async () => {
    live = await startLive(sessionAffinityScenario(), { northd: true });
  });
  afterAll(async () => {
    await live?.stop();
  });

  it('is answered on the ovn side by its retransmission, as the ovn backend answers it, and both agree', async () => {
    const probe = { from: 'default/client', to: 'svc/shop/web', protocol: 'TCP' as const, port: 80, allowed: true };
    const t = await koTrace(probe, {
      cluster: live.cluster,
      nb: live.cp.nb.remote,
      sb: live.cp.sb.remote,
      clock: realClock,
      settings: live.settings,
    });
    expect(t.ovn.allowed).toBe(true);
    expect(t.ovn.note).toMatch(/retransmi/);
    expect(t.ovn.text).toContain('commit_lb_aff');
    expect(t.ovn.retransmission).toBeDefined();
    expect(t.agree).toBe(true);
  });
});
