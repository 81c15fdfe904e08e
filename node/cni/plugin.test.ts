import { describe, expect, it } from 'vitest';
import { type DaemonCall, DaemonCallError } from './client.ts';
import { runPlugin } from './plugin.ts';
import { type CniResult, type DaemonRequest, type DaemonResponse, SUPPORTED_CNI_VERSIONS } from './protocol.ts';

const OWN: CniResult = {
  cniVersion: '1.1.0',
  interfaces: [{ name: 'eth0', mac: '00:00:00:aa:bb:cc', mtu: 1400, sandbox: '/run/netns/p1' }],
  ips: [
    { address: '10.16.0.5/16', gateway: '10.16.0.1', interface: 0 },
    { address: 'fd00:10:16::5/64', gateway: 'fd00:10:16::1', interface: 0 },
  ],
  routes: [{ dst: '0.0.0.0/0', gw: '10.16.0.1', mtu: 1400 }],
};

const ENV = {
  CNI_COMMAND: 'ADD',
  CNI_CONTAINERID: 'c0ffee',
  CNI_NETNS: '/run/netns/p1',
  CNI_IFNAME: 'eth0',
  CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-0;K8S_POD_INFRA_CONTAINER_ID=c0ffee',
  CNI_PATH: '/opt/cni/bin',
};

const conf = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ cniVersion: '1.1.0', name: 'kovn', type: 'kovn', ...extra });

/** A daemon that records requests and answers `res` (or throws it). */
function daemon(res: DaemonResponse | DaemonCallError = { ok: true, result: OWN }) {
  const calls: { socket: string; req: DaemonRequest }[] = [];
  const call: DaemonCall = async (socket, req) => {
    calls.push({ socket, req });
    if (res instanceof DaemonCallError) throw res;
    return res;
  };
  return { calls, call };
}

async function run(env: Record<string, string | undefined>, stdin: string, d = daemon()) {
  const out = await runPlugin({ env, readStdin: async () => stdin, call: d.call });
  const body = out.stdout ? JSON.parse(out.stdout) : undefined;
  return { ...out, body, calls: d.calls };
}

describe('CNI plugin: VERSION', () => {
  it('echoes the cniVersion it is given and lists the supported versions', async () => {
    const r = await run({ CNI_COMMAND: 'VERSION' }, '{"cniVersion":"0.4.0"}');
    expect(r.exitCode).toBe(0);
    expect(r.body).toEqual({ cniVersion: '0.4.0', supportedVersions: [...SUPPORTED_CNI_VERSIONS] });
    expect(r.calls).toEqual([]);
  });

  it('answers in 1.1.0 when stdin names no version', async () => {
    expect((await run({ CNI_COMMAND: 'VERSION' }, '')).body.cniVersion).toBe('1.1.0');
  });
});

describe('CNI plugin: ADD', () => {
  it('forwards the environment and the config to the daemon and prints its result', async () => {
    const r = await run(ENV, conf({ server_socket: '/tmp/x.sock' }));
    expect(r.exitCode).toBe(0);
    expect(r.calls).toEqual([
      {
        socket: '/tmp/x.sock',
        req: {
          command: 'ADD',
          cniVersion: '1.1.0',
          network: 'kovn',
          containerId: 'c0ffee',
          netns: '/run/netns/p1',
          ifName: 'eth0',
          podName: 'web-0',
          podNamespace: 'default',
          provider: 'ovn',
        },
      },
    ]);
    expect(r.body).toEqual(OWN);
  });

  it('defaults the socket to DEFAULT_DAEMON_SOCKET and passes provider and runtimeConfig', async () => {
    const r = await run(ENV, conf({ provider: 'net1.ns1.ovn', runtimeConfig: { portMappings: [] } }));
    expect(r.calls[0]?.socket).toBe('/run/kovn/daemon.sock');
    expect(r.calls[0]?.req).toMatchObject({ provider: 'net1.ns1.ovn', runtimeConfig: { portMappings: [] } });
  });

  it('prints 0.3.x/0.4.0 results with ips[].version and without the 1.1 fields', async () => {
    for (const v of ['0.3.0', '0.3.1', '0.4.0']) {
      const r = await run(ENV, conf({ cniVersion: v }));
      expect(r.body).toEqual({
        cniVersion: v,
        interfaces: [{ name: 'eth0', mac: '00:00:00:aa:bb:cc', sandbox: '/run/netns/p1' }],
        ips: [
          { version: '4', address: '10.16.0.5/16', gateway: '10.16.0.1', interface: 0 },
          { version: '6', address: 'fd00:10:16::5/64', gateway: 'fd00:10:16::1', interface: 0 },
        ],
        routes: [{ dst: '0.0.0.0/0', gw: '10.16.0.1' }],
      });
    }
  });

  it('prints a 1.0.0 result without ips[].version and without the 1.1 fields', async () => {
    const r = await run(ENV, conf({ cniVersion: '1.0.0' }));
    expect(r.body.ips[0]).toEqual({ address: '10.16.0.5/16', gateway: '10.16.0.1', interface: 0 });
    expect(r.body.interfaces[0]).not.toHaveProperty('mtu');
    expect(r.body.routes[0]).toEqual({ dst: '0.0.0.0/0', gw: '10.16.0.1' });
  });

  it('chains after a prevResult: its interfaces first, this attachment after, indexes shifted', async () => {
    const prevResult = {
      cniVersion: '0.4.0',
      interfaces: [{ name: 'lo', sandbox: '/run/netns/p1' }],
      ips: [{ version: '4', address: '127.0.0.1/8', interface: 0 }],
      dns: { nameservers: ['10.96.0.10'] },
    };
    const r = await run(ENV, conf({ cniVersion: '0.4.0', prevResult }));
    expect(r.calls[0]?.req.prevResult).toEqual({
      cniVersion: '0.4.0',
      interfaces: [{ name: 'lo', sandbox: '/run/netns/p1' }],
      ips: [{ address: '127.0.0.1/8', interface: 0 }],
      dns: { nameservers: ['10.96.0.10'] },
    });
    expect(r.body.interfaces.map((i: { name: string }) => i.name)).toEqual(['lo', 'eth0']);
    expect(r.body.ips.map((i: { interface: number }) => i.interface)).toEqual([0, 1, 1]);
    expect(r.body.dns).toEqual({ nameservers: ['10.96.0.10'] });
  });

  it("reports the config's dns when the daemon gives none", async () => {
    const r = await run(ENV, conf({ dns: { nameservers: ['10.96.0.10'], search: ['svc.cluster.local'] } }));
    expect(r.body.dns).toEqual({ nameservers: ['10.96.0.10'], search: ['svc.cluster.local'] });
  });

  it('refuses a daemon result that is not a result (code 6)', async () => {
    const r = await run(
      ENV,
      conf(),
      daemon({ ok: true, result: { cniVersion: '1.1.0', ips: [{ address: '10.16.0.5' }] } }),
    );
    expect(r.exitCode).toBe(1);
    expect(r.body).toMatchObject({ code: 6 });
    expect(r.body.msg).toContain('daemon result.ips[0].address');
  });
});

describe('CNI plugin: the environment (code 4)', () => {
  const cases: [string, Record<string, string | undefined>, string][] = [
    ['no CNI_COMMAND', { ...ENV, CNI_COMMAND: undefined }, 'CNI_COMMAND'],
    ['an unknown CNI_COMMAND', { ...ENV, CNI_COMMAND: 'UPDATE' }, 'UPDATE'],
    ['ADD without CNI_NETNS and CNI_IFNAME', { ...ENV, CNI_NETNS: '', CNI_IFNAME: undefined }, 'CNI_NETNS, CNI_IFNAME'],
    ['CHECK without CNI_CONTAINERID', { ...ENV, CNI_COMMAND: 'CHECK', CNI_CONTAINERID: '' }, 'CNI_CONTAINERID'],
    ['a container id with a slash', { ...ENV, CNI_CONTAINERID: 'a/b' }, 'CNI_CONTAINERID'],
    ['an interface name of 16 bytes', { ...ENV, CNI_IFNAME: 'eth0123456789012' }, 'longer than 15'],
    ['an interface name with a colon', { ...ENV, CNI_IFNAME: 'eth0:1' }, 'CNI_IFNAME'],
    ['CNI_ARGS without =', { ...ENV, CNI_ARGS: 'K8S_POD_NAME' }, 'CNI_ARGS'],
    ['ADD without K8S_POD_NAME', { ...ENV, CNI_ARGS: 'K8S_POD_NAMESPACE=default' }, 'K8S_POD_NAME'],
    ['GC without CNI_PATH', { CNI_COMMAND: 'GC' }, 'CNI_PATH'],
  ];
  for (const [what, env, named] of cases)
    it(`refuses ${what}, naming it`, async () => {
      const r = await run(env, conf({ 'cni.dev/valid-attachments': [] }));
      expect(r.exitCode).toBe(1);
      expect(r.body.code).toBe(4);
      expect(r.body.msg).toContain(named);
      expect(r.calls).toEqual([]);
    });

  it("takes the namespace from the config's pod_namespace when CNI_ARGS names only the pod (podman 4.3)", async () => {
    const podman = { ...ENV, CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAME=web-0' };
    const r = await run(podman, conf({ pod_namespace: 'team-a' }));
    expect(r.exitCode).toBe(0);
    expect(r.calls[0]?.req).toMatchObject({ podName: 'web-0', podNamespace: 'team-a' });
    const withoutKey = await run(podman, conf());
    expect(withoutKey.body).toMatchObject({ code: 4, msg: 'CNI_ARGS lacks K8S_POD_NAMESPACE' });
    const kubelet = await run(ENV, conf({ pod_namespace: 'team-a' }));
    expect(kubelet.calls[0]?.req.podNamespace).toBe('default');
  });

  it('refuses a pod_namespace that is not a non-empty string (code 7)', async () => {
    const r = await run(ENV, conf({ pod_namespace: 3 }));
    expect(r.body).toMatchObject({ code: 7 });
    expect(r.body.msg).toContain('pod_namespace');
  });

  it('takes DEL without CNI_NETNS (the namespace may be gone) and without pod names', async () => {
    const r = await run(
      { CNI_COMMAND: 'DEL', CNI_CONTAINERID: 'c0ffee', CNI_IFNAME: 'eth0' },
      conf(),
      daemon({ ok: true }),
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.calls[0]?.req).toMatchObject({ command: 'DEL', netns: '', podName: '', podNamespace: '' });
  });
});

describe('CNI plugin: the config (codes 6, 7, 2)', () => {
  const cases: [string, string, number, string][] = [
    ['empty stdin', '', 6, 'stdin is empty'],
    ['text that is not JSON', '{"cniVersion":', 6, 'not JSON'],
    ['a JSON list', '[]', 6, 'JSON object'],
    ['a numeric cniVersion', conf({ cniVersion: 1 }), 6, 'cniVersion'],
    ['a cniVersion that is not a version', conf({ cniVersion: 'v1' }), 6, '"v1"'],
    ['no name', conf({ name: undefined }), 7, 'no name'],
    ['a name with a space', conf({ name: 'my net' }), 7, '"my net"'],
    ['no type', conf({ type: '' }), 7, 'type'],
    ['a relative server_socket', conf({ server_socket: 'run/d.sock' }), 7, 'server_socket'],
    ['an empty provider', conf({ provider: '' }), 7, 'provider'],
    ['a dns that is not an object', conf({ dns: ['10.96.0.10'] }), 7, 'config.dns'],
    ['an ipam section', conf({ ipam: { type: 'host-local' } }), 2, 'ipam={"type":"host-local"}'],
    ['ipMasq', conf({ ipMasq: true }), 2, 'ipMasq=true'],
    ['a capability with a value', conf({ runtimeConfig: { mac: '0a:58:0a:10:00:09' } }), 2, 'runtimeConfig.mac="0a:'],
    ['a runtimeConfig that is no object', conf({ runtimeConfig: [] }), 7, 'runtimeConfig must be an object'],
  ];
  for (const [what, stdin, code, named] of cases)
    it(`refuses ${what} with code ${code}`, async () => {
      const r = await run(ENV, stdin);
      expect(r.exitCode).toBe(1);
      expect(r.body).toMatchObject({ code });
      expect(r.body.msg).toContain(named);
      expect(r.calls).toEqual([]);
    });

  it('answers an error in the config version when it is one kovn speaks', async () => {
    const r = await run(ENV, conf({ cniVersion: '0.4.0', name: '' }));
    expect(r.body).toEqual({ cniVersion: '0.4.0', code: 7, msg: 'network config has no name' });
  });

  it('refuses a malformed prevResult on ADD (code 6, the field named) and ignores it on DEL', async () => {
    const prevResult = { ips: [{ address: '10.1.1.1/40' }] };
    const add = await run(ENV, conf({ prevResult }));
    expect(add.body).toMatchObject({ code: 6 });
    expect(add.body.msg).toContain('config.prevResult.ips[0].address');
    const del = await run({ ...ENV, CNI_COMMAND: 'DEL' }, conf({ prevResult }), daemon({ ok: true }));
    expect(del.exitCode).toBe(0);
    expect(del.calls[0]?.req.prevResult).toBeUndefined();
    expect(del.stderr).toContain('ignored');
  });

  it('lets DEL through with a field ADD refuses (it undoes what an ADD may have done)', async () => {
    const r = await run({ ...ENV, CNI_COMMAND: 'DEL' }, conf({ ipam: { type: 'host-local' } }), daemon({ ok: true }));
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('ipam');
    const ips = await run(
      { ...ENV, CNI_COMMAND: 'DEL' },
      conf({ runtimeConfig: { ips: ['10.16.0.9/16'] } }),
      daemon({ ok: true }),
    );
    expect(ips.exitCode).toBe(0);
    expect(ips.stderr).toContain('runtimeConfig.ips');
  });
});

describe('CNI plugin: versions (code 1)', () => {
  const cases: [string, string, string][] = [
    ['ADD', '0.2.0', 'not supported'],
    ['ADD', '2.0.0', 'not supported'],
    ['CHECK', '0.3.1', 'CHECK needs cniVersion 0.4.0'],
    ['STATUS', '1.0.0', 'STATUS needs cniVersion 1.1.0'],
    ['GC', '1.0.0', 'GC needs cniVersion 1.1.0'],
  ];
  for (const [command, v, msg] of cases)
    it(`refuses ${command} with cniVersion ${v}`, async () => {
      const r = await run({ ...ENV, CNI_COMMAND: command }, conf({ cniVersion: v, 'cni.dev/valid-attachments': [] }));
      expect(r.body).toMatchObject({ code: 1 });
      expect(r.body.msg).toContain(msg);
    });

  it('takes an absent cniVersion as 0.1.0, which kovn does not speak', async () => {
    const r = await run(ENV, JSON.stringify({ name: 'kovn', type: 'kovn' }));
    expect(r.body).toMatchObject({ code: 1, msg: 'cniVersion 0.1.0 is not supported by kovn' });
  });
});

describe('CNI plugin: CHECK, STATUS, GC', () => {
  const prevResult = OWN;

  it('CHECK needs prevResult (code 7) and forwards it decoded', async () => {
    const missing = await run({ ...ENV, CNI_COMMAND: 'CHECK' }, conf());
    expect(missing.body).toMatchObject({ code: 7, msg: 'CHECK needs prevResult' });
    const r = await run({ ...ENV, CNI_COMMAND: 'CHECK' }, conf({ prevResult }), daemon({ ok: true }));
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.calls[0]?.req).toMatchObject({ command: 'CHECK', prevResult: OWN });
  });

  it('STATUS forwards with no attachment; GC forwards the attachments to keep', async () => {
    const s = await run({ CNI_COMMAND: 'STATUS' }, conf(), daemon({ ok: true }));
    expect(s.exitCode).toBe(0);
    expect(s.calls[0]?.req).toMatchObject({ command: 'STATUS', containerId: '', ifName: '' });
    const keep = [{ containerID: 'c1', ifname: 'eth0' }];
    const g = await run(
      { CNI_COMMAND: 'GC', CNI_PATH: '/opt/cni/bin' },
      conf({ 'cni.dev/valid-attachments': keep }),
      daemon({ ok: true }),
    );
    expect(g.exitCode).toBe(0);
    expect(g.calls[0]?.req.validAttachments).toEqual([{ containerId: 'c1', ifName: 'eth0' }]);
  });

  it('GC without cni.dev/valid-attachments is refused, not taken as "keep nothing"', async () => {
    const g = await run({ CNI_COMMAND: 'GC', CNI_PATH: '/opt/cni/bin' }, conf());
    expect(g.body).toMatchObject({ code: 7 });
    expect(g.body.msg).toContain('cni.dev/valid-attachments');
    expect(g.calls).toEqual([]);
  });
});

describe('CNI plugin: the daemon', () => {
  const down = new DaemonCallError('UNREACHABLE', 'cannot connect to the daemon at /run/kovn/daemon.sock: ENOENT');

  it('daemon down: ADD, CHECK and GC answer 11, STATUS 50, each naming the socket', async () => {
    const prevResult = OWN;
    for (const [command, code] of [
      ['ADD', 11],
      ['CHECK', 11],
      ['GC', 11],
      ['STATUS', 50],
    ] as const) {
      const r = await run(
        { ...ENV, CNI_COMMAND: command },
        conf({ prevResult, 'cni.dev/valid-attachments': [] }),
        daemon(down),
      );
      expect(r.body).toMatchObject({ cniVersion: '1.1.0', code });
      expect(r.body.msg).toContain('/run/kovn/daemon.sock');
    }
  });

  it('daemon down: DEL succeeds (best-effort, SPEC.md) and says so on stderr', async () => {
    const r = await run({ ...ENV, CNI_COMMAND: 'DEL' }, conf(), daemon(down));
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('nothing done here');
  });

  it('a connection that breaks mid-DEL is 11 (something may be half done), a garbled answer 6', async () => {
    const broke = await run({ ...ENV, CNI_COMMAND: 'DEL' }, conf(), daemon(new DaemonCallError('CLOSED', 'closed')));
    expect(broke.body).toMatchObject({ code: 11 });
    const garbled = await run(ENV, conf(), daemon(new DaemonCallError('BAD_RESPONSE', 'answered "x"')));
    expect(garbled.body).toMatchObject({ code: 6 });
  });

  it("passes the daemon's error through in the config's version", async () => {
    const error = {
      cniVersion: '1.1.0',
      code: 100,
      msg: 'pod default/web-0: no ovn.kubernetes.io/routed',
      details: 'waited 30 s',
    };
    const r = await run(ENV, conf({ cniVersion: '1.0.0' }), daemon({ ok: false, error }));
    expect(r.exitCode).toBe(1);
    expect(r.body).toEqual({ ...error, cniVersion: '1.0.0' });
  });
});
