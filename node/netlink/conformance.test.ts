/** The Netlink conformance suite against both implementations. */
import { describe } from 'vitest';
import { type NetlinkWorld, describeNetlinkConformance } from './conformance.ts';
import { RecordingNetlink } from './recording.ts';
import { RtNetlink } from './rtnetlink.ts';
import { NetnsFixture, ip, requireNetns } from './testing.ts';

describeNetlinkConformance('RecordingNetlink', async (): Promise<NetlinkWorld> => {
  const nl = new RecordingNetlink({ netns: [] });
  let n = 0;
  return {
    nl,
    netns: async () => {
      const path = `/run/netns/recorded-${n++}`;
      nl.addNetns(path);
      return path;
    },
    removeNetns: async (path) => nl.removeNetns(path),
    hostName: () => `rec${n++}_h`,
    spareLink: async () => {
      const name = `spare${n++}`;
      nl.addHostLink(name, 'veth');
      return name;
    },
    cleanup: async () => {
      for (const l of nl.links()) await nl.deleteLink(l.hostIfName);
    },
    close: async () => undefined,
  };
});

describe.skipIf(!requireNetns('node/netlink conformance'))('with real namespaces', () => {
  describeNetlinkConformance('RtNetlink', async (): Promise<NetlinkWorld> => {
    const fx = await NetnsFixture.create();
    const nl = new RtNetlink();
    return {
      nl,
      netns: async () => (await fx.netns()).path,
      removeNetns: async (path) => {
        await ip('netns', 'del', path.split('/').pop()!);
      },
      hostName: () => fx.linkName(),
      // A veth end in the host whose peer waits in a namespace of its own.
      spareLink: async () => {
        const name = fx.linkName();
        await ip('link', 'add', name, 'type', 'veth', 'peer', 'name', 'spare0', 'netns', (await fx.netns()).name);
        return name;
      },
      cleanup: () => fx.cleanup(),
      close: async () => {
        nl.close();
        await fx.cleanup();
      },
    };
  });
});
