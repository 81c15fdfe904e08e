/**
 * waitForNorthd (`ovn-nbctl --wait=sb sync`): after it resolves, the SB has
 * what northd made of our rows; without northd it fails with a typed error
 * (after creating NB_Global, as ovn-nbctl does).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { richTopology } from './testing.ts';
import { plan } from '../../../model/topology/index.ts';
import { type ControlPlane, requireOvn, runTool, startControlPlane } from '../control-plane/index.ts';
import { OvnBackend } from './backend.ts';
import { OvnBackendError } from './errors.ts';

const sbColumn = async (cp: ControlPlane, table: string, column: string) =>
  (await runTool('ovn-sbctl', [`--db=${cp.sb.remote}`, '--bare', `--columns=${column}`, 'list', table])).stdout;

describe.skipIf(!requireOvn('ovn backend waitForNorthd'))('OvnBackend.waitForNorthd', () => {
  let cp: ControlPlane;
  let be: OvnBackend;

  beforeAll(async () => {
    cp = await startControlPlane({ northd: true });
    be = await OvnBackend.connect({ remotes: cp.nb.remote });
  });
  afterAll(async () => {
    await be?.close();
    await cp?.stop();
  });

  it('after apply + waitForNorthd the SB has the datapaths and port bindings', async () => {
    const t = richTopology();
    await be.apply(plan(await be.read(), t));
    const cfg = await be.waitForNorthd({ timeoutMs: 20_000 });
    expect(cfg).toBeGreaterThan(0);
    const global = be.session.cache.rows('NB_Global')[0];
    expect(global?.sb_cfg).toBeGreaterThanOrEqual(cfg);
    // northd makes no datapath for a disabled router (lr1 in the rich topology), nor bindings for its ports.
    const routers = [...t.router.values()].filter((r) => r.enabled !== false).map((r) => r.name);
    const datapaths = await sbColumn(cp, 'Datapath_Binding', 'external_ids');
    for (const name of [...t.switch.keys(), ...routers]) expect(datapaths).toContain(`name=${name}`);
    expect(datapaths).not.toContain('name=lr1');
    const bindings = (await sbColumn(cp, 'Port_Binding', 'logical_port')).split(/\s+/);
    const routerPorts = [...t.routerPort.values()].filter((p) => routers.includes(p.router)).map((p) => p.name);
    for (const name of [...t.switchPort.keys(), ...routerPorts]) expect(bindings).toContain(name);
    expect(await be.waitForNorthd()).toBeGreaterThan(cfg); // every call bumps
  });

  it('writes right before waitForNorthd are in the SB when it resolves', async () => {
    const t = richTopology();
    const gone = 'vm-1-c1';
    const next = { ...t, switchPort: new Map([...t.switchPort].filter(([k]) => k !== gone)) };
    await be.apply(plan(await be.read(), next));
    await be.waitForNorthd();
    expect((await sbColumn(cp, 'Port_Binding', 'logical_port')).split(/\s+/)).not.toContain(gone);
  });
});

describe.skipIf(!requireOvn('ovn backend waitForNorthd without northd'))(
  'OvnBackend.waitForNorthd without northd',
  () => {
    let cp: ControlPlane;
    let be: OvnBackend;

    beforeAll(async () => {
      cp = await startControlPlane({ northd: false });
      be = await OvnBackend.connect({ remotes: cp.nb.remote });
    });
    afterAll(async () => {
      await be?.close();
      await cp?.stop();
    });

    it('creates NB_Global when missing, then times out with a typed error', async () => {
      expect(be.session.cache.rows('NB_Global')).toEqual([]);
      const err = await be.waitForNorthd({ timeoutMs: 300 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OvnBackendError);
      expect(err).toMatchObject({ code: 'northd-timeout', site: { nbTable: 'NB_Global' } });
      expect(be.session.cache.rows('NB_Global')[0]?.nb_cfg).toBe(1);
    });
  },
);
