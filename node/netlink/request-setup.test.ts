/**
 * What node/setup adds to a PodLink, as the helper is sent it: a route's
 * preferred source (ovn0's routes from the node's InternalIP) and the tx
 * checksum offload turned off (the userspace datapath). Their effect on
 * real traffic is node/setup/ovn0.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { planPodLink } from './request.ts';
import type { PodLink } from './types.ts';

const OVN0: PodLink = {
  hostIfName: 'n1-ovn0',
  netns: '/run/netns/node1',
  ifName: 'ovn0',
  mac: '0a:58:64:40:00:02',
  mtu: 1400,
  addresses: ['100.64.0.2/16'],
  routes: [
    { dst: '10.16.0.0/16', gw: '100.64.0.1', src: '172.18.0.2' },
    { dst: '10.96.0.0/12', gw: '100.64.0.1' },
  ],
  txChecksumOff: true,
};

describe('planPodLink: node/setup fields', () => {
  it('sends the source as RTA_PREFSRC bytes and asks for the tx checksum offload off', () => {
    const r = planPodLink(OVN0);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.plan.job.txChecksumOff).toBe(true);
    expect(r.plan.job.routes).toEqual([
      {
        family: 4,
        dst: [10, 16, 0, 0],
        dstLen: 16,
        gw: [100, 64, 0, 1],
        src: [172, 18, 0, 2],
        label: '10.16.0.0/16 via 100.64.0.1',
      },
      { family: 4, dst: [10, 96, 0, 0], dstLen: 12, gw: [100, 64, 0, 1], label: '10.96.0.0/12 via 100.64.0.1' },
    ]);
  });

  it('leaves both out when not asked', () => {
    const { txChecksumOff: _, ...plain } = OVN0;
    const r = planPodLink({ ...plain, routes: [{ dst: '10.16.0.0/16', gw: '100.64.0.1' }] });
    expect(r.ok && r.plan.job).not.toHaveProperty('txChecksumOff');
    expect(r.ok && r.plan.job.routes[0]).not.toHaveProperty('src');
  });

  it('refuses a source that is no address of the route family', () => {
    for (const src of ['fd00::2', 'not-an-ip'])
      expect(planPodLink({ ...OVN0, routes: [{ dst: '10.16.0.0/16', gw: '100.64.0.1', src }] })).toMatchObject({
        ok: false,
        problems: [{ code: 'bad-route', path: 'routes[0].src' }],
      });
  });
});
