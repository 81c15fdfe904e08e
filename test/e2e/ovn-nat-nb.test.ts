/**
 * OVN-native NAT on a real NB (ovn-nbctl reads what the controller wrote):
 * the rows Kube-OVN writes for a VPC's external gateway port
 * (handleAddVpcExternalSubnet: CreateLogicalPatchPort, CreateGatewayChassises),
 * an OvnFip and an OvnSnatRule (AddNat), an OvnDnatRule (AddDnatRule: a load
 * balancer on the router), and a Subnet's routeTable (the router port's
 * options:route_table), with northd accepting them (its port bindings).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ControlPlane, requireOvn, startControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { runTool } from '../../backends/ovn/control-plane/exec.ts';
import { OvnBackend } from '../../backends/ovn/nb/backend.ts';
import { nbctl } from '../../backends/ovn/nb/testing.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { ovnNatObjects } from '../controller/ovn-nat.fixture.ts';

describe.skipIf(!requireOvn('OVN-native NAT on real NB'))('OVN-native NAT rows on a real NB', () => {
  let cp: ControlPlane;
  let cluster: MemoryCluster;
  let c: Controller;
  let be: OvnBackend;
  beforeAll(async () => {
    cp = await startControlPlane({});
    cluster = new MemoryCluster({ now: () => Date.now() });
    for (const o of ovnNatObjects()) {
      if (o.kind === 'Subnet' && o.metadata.name === 'net1')
        await cluster.create({ ...o, spec: { ...(o.spec as object), routeTable: 'rtb1' } });
      else await cluster.create(o);
    }
    be = await OvnBackend.connect({ remotes: cp.nb.remote });
    c = new Controller({ cluster, backend: be, clock: realClock, random: seededRandomBytes(3) });
    await c.start();
    await settled(c);
  }, 60_000);
  afterAll(async () => {
    await c?.stop();
    await be?.close();
    await cp?.stop();
  });

  const nb = (...args: string[]) => nbctl(cp.nb.remote, ...args).then((s) => s.trim());

  it("the VPC's gateway port: its address, MAC, gateway chassis and peer switch port", async () => {
    expect(await nb('get', 'Logical_Router_Port', 'vpc1-external', 'networks')).toBe('["172.18.0.10/24"]');
    const eip = await cluster.get({ kind: 'OvnEip', name: 'vpc1-external' });
    const mac = (eip?.spec as { macAddress?: string } | undefined)?.macAddress;
    expect(await nb('get', 'Logical_Router_Port', 'vpc1-external', 'mac')).toBe(`"${mac}"`);
    // Kube-OVN's Gateway_Chassis name: <lrp>-<chassis>, priority 100 for the first.
    expect(await nb('lrp-get-gateway-chassis', 'vpc1-external')).toMatch(/^vpc1-external-gw1 +100$/);
    expect(await nb('lsp-get-type', 'external-vpc1')).toBe('router');
    expect(await nb('get', 'Logical_Switch_Port', 'external-vpc1', 'addresses')).toBe('[router]');
    expect(await nb('get', 'Logical_Switch_Port', 'external-vpc1', 'options:router-port')).toBe('vpc1-external');
    // northd made it a distributed gateway port: its chassisredirect port binding.
    await vi.waitFor(async () => {
      const sb = await runTool('ovn-sbctl', [
        `--db=${cp.sb.remote}`,
        '--bare',
        '--columns=type',
        'find',
        'Port_Binding',
        'logical_port=cr-vpc1-external',
      ]);
      expect(sb.stdout.trim()).toBe('chassisredirect');
    });
  });

  it('the FIP and SNAT rows on the routers, as lr-nat-list shows them', async () => {
    const mac = ((await cluster.get({ kind: 'IP', name: 'web.ns1' }))?.spec as { macAddress: string } | undefined)
      ?.macAddress;
    const vpc1 = await nb('lr-nat-list', 'vpc1');
    expect(vpc1).toMatch(new RegExp(`dnat_and_snat +172\\.18\\.0\\.20 +10\\.1\\.0\\.2 +${mac} +web\\.ns1`));
    expect(await nb('--bare', '--columns=options', 'find', 'NAT', 'external_ip=172.18.0.20')).toBe('stateless=false');
    expect(await nb('lr-nat-list', 'vpc2')).toMatch(/snat +172\.18\.0\.11 +10\.2\.0\.0\/24/);
  });

  it('the DNAT rule: a load balancer named after it on the VPC router', async () => {
    expect(await nb('lb-list', 'dnat-app')).toMatch(/dnat-app +tcp +172\.18\.0\.21:80 +10\.1\.0\.3:8080/);
    expect(await nb('lr-lb-list', 'vpc1')).toContain('dnat-app');
  });

  it("a Subnet's routeTable is its router port's options:route_table", async () => {
    expect(await nb('get', 'Logical_Router_Port', 'vpc1-net1', 'options:route_table')).toBe('rtb1');
    expect(await nb('get', 'Logical_Router_Port', 'vpc2-net2', 'options')).toBe('{}');
  });
});
