import { describe, expect, it } from 'vitest';
import { hostMac } from './hosts.ts';
import { assembleScenario, readScenarioText, ScenarioLoadError } from './load.ts';

const scenario = (hosts: string, probes = '') =>
  assembleScenario(
    readScenarioText(
      't.yaml',
      `apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: {name: hosts}
spec:
  hosts:
${hosts}
  expect:
${probes || '  - {from: host/gw, to: default/a, protocol: ICMP, allowed: true}'}
`,
    ),
    't',
  );

function failure(hosts: string, probes = ''): ScenarioLoadError {
  try {
    scenario(hosts, probes);
  } catch (e) {
    if (e instanceof ScenarioLoadError) return e;
    throw e;
  }
  throw new Error('loaded');
}

describe('scenario physical hosts (spec.hosts)', () => {
  it('loads hosts with defaults: untagged, a MAC from the name, bare addresses as /32 and /128', () => {
    const s =
      scenario(`  - {name: gw, provider: net1, vlan: 100, ips: [172.17.0.1/16, 'fd00::1/64'], gateway: 172.17.0.254}
  - {name: b, provider: net1, ips: [172.17.0.2, 'fd00::2'], mac: '0A:00:00:00:00:01', gateway: [172.17.0.1, 'fd00::1']}`);
    expect(s.hosts).toEqual([
      {
        name: 'gw',
        provider: 'net1',
        vlan: 100,
        ips: ['172.17.0.1/16', 'fd00::1/64'],
        mac: hostMac('gw'),
        gateways: ['172.17.0.254'],
      },
      {
        name: 'b',
        provider: 'net1',
        vlan: 0,
        ips: ['172.17.0.2/32', 'fd00::2/128'],
        mac: '0a:00:00:00:00:01',
        gateways: ['172.17.0.1', 'fd00::1'],
      },
    ]);
    expect(s.expect[0]!.from).toBe('host/gw');
  });

  it('a default MAC is locally administered unicast, stable, and differs between names', () => {
    expect(hostMac('gw')).toMatch(/^02:[0-9a-f]{2}(:[0-9a-f]{2}){4}$/);
    expect(hostMac('gw')).toBe(hostMac('gw'));
    expect(hostMac('gw')).not.toBe(hostMac('gx'));
  });

  it('a scenario without hosts has none', () => {
    const s = assembleScenario(
      readScenarioText('t.yaml', 'apiVersion: kovn.io/v1alpha1\nkind: Scenario\nmetadata: {name: x}\n'),
      't',
    );
    expect(s.hosts).toEqual([]);
  });

  it.each([
    ['  - {name: gw, provider: net1, ips: [172.17.0.1/16], color: red}', 'spec.hosts[0].color', /unknown field/],
    ['  - {name: GW, provider: net1, ips: [172.17.0.1/16]}', 'spec.hosts[0].name', /DNS-1123/],
    ['  - {name: gw, ips: [172.17.0.1/16]}', 'spec.hosts[0].provider', /provider network/],
    ['  - {name: gw, provider: net1, vlan: 4095, ips: [172.17.0.1/16]}', 'spec.hosts[0].vlan', /0\.\.4094/],
    ['  - {name: gw, provider: net1, ips: []}', 'spec.hosts[0].ips', /non-empty/],
    ['  - {name: gw, provider: net1, ips: [172.17.0.300/16]}', 'spec.hosts[0].ips[0]', /an address/],
    ['  - {name: gw, provider: net1, ips: [172.17.0.1/16], mac: "01:00:5e:00:00:01"}', 'spec.hosts[0].mac', /unicast/],
    ['  - {name: gw, provider: net1, ips: [172.17.0.1/16], gateway: "fd00::1"}', 'spec.hosts[0].gateway', /IPv6/],
    [
      '  - {name: gw, provider: net1, ips: [172.17.0.1/16]}\n  - {name: gw, provider: net2, ips: [10.0.0.1/8]}',
      'spec.hosts[1].name',
      /already host gw's/,
    ],
    [
      '  - {name: gw, provider: net1, ips: [172.17.0.1/16]}\n  - {name: b, provider: net1, ips: [172.17.0.1/24]}',
      'spec.hosts[1].ips',
      /address 172.17.0.1 is already host gw's/,
    ],
  ])('refuses %s at %s', (hosts, field, detail) => {
    const e = failure(hosts);
    expect(e.code).toBe('shape');
    expect(e.field).toBe(field);
    expect(e.message).toMatch(detail);
  });

  it('a probe naming a host that is not declared is refused at its field', () => {
    const e = failure(
      '  - {name: gw, provider: net1, ips: [172.17.0.1/16]}',
      '  - {from: default/a, to: host/gx, protocol: ICMP, allowed: true}',
    );
    expect(e.field).toBe('spec.expect[0].to');
    expect(e.message).toMatch(/no host gx/);
  });
});
