import { describe, expect, it } from 'vitest';
import { RecordingNetlink } from './recording.ts';
import { NetlinkError, type PodLink } from './types.ts';

const LINK: PodLink = {
  hostIfName: 'abc_h',
  netns: '/run/netns/p1',
  ifName: 'eth0',
  mac: '0a:58:0a:10:00:05',
  mtu: 1400,
  addresses: ['10.16.0.5/16'],
  routes: [{ dst: 'default', gw: '10.16.0.1' }],
};

describe('RecordingNetlink', () => {
  it('keeps every request in order, failed ones included', async () => {
    const nl = new RecordingNetlink({ netns: ['/run/netns/p1'] });
    await nl.addPodLink(LINK);
    await expect(nl.addPodLink({ ...LINK, netns: '/run/netns/p2', hostIfName: 'def_h' })).rejects.toMatchObject({
      code: 'NETNS_GONE',
    });
    await nl.inspectPodLink(LINK.netns, 'eth0');
    await nl.listLinks();
    await nl.deleteLink('abc_h');
    expect(nl.requests.map((r) => r.op)).toEqual([
      'addPodLink',
      'addPodLink',
      'inspectPodLink',
      'listLinks',
      'deleteLink',
    ]);
    expect(nl.requests[0]).toEqual({ op: 'addPodLink', link: LINK });
  });

  it('answers with an injected error, recording the request and changing nothing', async () => {
    const nl = new RecordingNetlink({
      fail: (r) => (r.op === 'addPodLink' ? new NetlinkError('KERNEL', 'injected: ENOMEM') : undefined),
    });
    await expect(nl.addPodLink(LINK)).rejects.toMatchObject({ code: 'KERNEL', message: 'injected: ENOMEM' });
    expect(nl.requests).toHaveLength(1);
    expect(nl.links()).toEqual([]);
  });

  it('without a namespace list, every path exists until removed', async () => {
    const nl = new RecordingNetlink();
    await nl.addPodLink(LINK);
    expect(nl.links()).toEqual([LINK]);
    nl.removeNetns(LINK.netns);
    expect(nl.links()).toEqual([]);
    await expect(nl.addPodLink(LINK)).rejects.toMatchObject({ code: 'NETNS_GONE' });
  });

  it("a namespace's removal takes veth pairs with it and hands a moved link back to the host, down and bare", async () => {
    const nl = new RecordingNetlink({ hostLinks: ['enp3s0f0v0'] });
    await nl.addPodLink(LINK);
    await nl.movePodLink({ ...LINK, name: 'enp3s0f0v0', ifName: 'net1' });
    expect(nl.hostLinks()).toEqual(['abc_h']);
    nl.removeNetns(LINK.netns);
    expect(nl.hostLinks()).toEqual(['net1']);
    expect(nl.requests.map((r) => r.op)).toEqual(['addPodLink', 'movePodLink']);
  });
});
