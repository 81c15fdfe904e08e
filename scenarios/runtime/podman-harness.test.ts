// podman 4.3 as a CNI client, before kovn's plugin takes part: a recording plugin of ours
// (named by the conflist's `type`, found through cni_plugin_dirs in a temp dir) shows what
// podman sends on ADD and DEL, that it uses our result, and that nothing lands in /etc.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir } from '../../backends/ovn/control-plane/index.ts';
import { Podman } from './podman.ts';
import { etcSnapshot, requireRuntime } from './support.ts';

interface Call {
  readonly env: Record<string, string>;
  readonly config: Record<string, unknown>;
}

/** A CNI plugin that appends each call (CNI_* and the config) to a log and answers with a fixed address. */
function recorder(log: string): string {
  return `#!${process.execPath}
const fs = require('node:fs');
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('CNI_')));
const input = fs.readFileSync(0, 'utf8');
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ env, config: input ? JSON.parse(input) : {} }) + '\\n');
const cmd = process.env.CNI_COMMAND;
if (cmd === 'VERSION') console.log(JSON.stringify({ cniVersion: '1.0.0', supportedVersions: ['0.4.0', '1.0.0'] }));
if (cmd === 'ADD') console.log(JSON.stringify({
  cniVersion: '1.0.0',
  interfaces: [{ name: process.env.CNI_IFNAME, mac: '0a:58:0a:10:00:05', sandbox: process.env.CNI_NETNS }],
  ips: [{ address: '10.16.0.5/16', gateway: '10.16.0.1', interface: 0 }],
}));
`;
}

describe.skipIf(!requireRuntime(['netns', 'podman'], 'podman harness'))('podman 4.3 calls a CNI plugin of ours', () => {
  let dir = '';
  let pm: Podman;
  let image = '';
  const log = () => join(dir, 'calls.jsonl');
  const calls = (): Call[] =>
    existsSync(log())
      ? readFileSync(log(), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Call)
      : [];
  const etcBefore = etcSnapshot();

  beforeAll(async () => {
    dir = await makeTempDir('pm');
    const plugins = join(dir, 'plugins');
    mkdirSync(plugins);
    pm = Podman.setup({ dir, pluginDirs: [plugins] });
    writeFileSync(join(plugins, 'kovn-record'), recorder(log()));
    chmodSync(join(plugins, 'kovn-record'), 0o755);
    pm.addNetwork({
      cniVersion: '1.0.0',
      name: 'kovnrec',
      plugins: [{ type: 'kovn-record', server_socket: join(dir, 'daemon.sock'), provider: 'ovn' }],
    });
    image = await pm.importBusybox();
  });
  afterAll(async () => {
    await pm?.removeAll();
    if (dir !== '') await removeTempDir(dir);
  });

  it('ADD gets the container name as K8S_POD_NAME, eth0, a netns path and our plugin config; the container uses our result', async () => {
    const id = await pm.run(['-d', '--name', 'rec1', '--network', 'kovnrec', image, 'sleep', '120']);
    const add = calls().find((c) => c.env.CNI_COMMAND === 'ADD');
    expect(add?.env).toMatchObject({
      CNI_CONTAINERID: id,
      CNI_IFNAME: 'eth0',
      CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAME=rec1',
      CNI_PATH: join(dir, 'plugins'),
    });
    expect(add?.env.CNI_NETNS).toMatch(/^\/run\/netns\/netns-[0-9a-f-]+$/);
    expect(existsSync(add?.env.CNI_NETNS ?? '')).toBe(true);
    expect(add?.config).toEqual({
      cniVersion: '1.0.0',
      name: 'kovnrec',
      type: 'kovn-record',
      server_socket: join(dir, 'daemon.sock'),
      provider: 'ovn',
    });
    expect(await pm.inspect('rec1', '{{.NetworkSettings.Networks.kovnrec.IPAddress}}')).toBe('10.16.0.5');
    expect((await pm.exec('rec1', ['cat', '/etc/hosts'])).stdout).toMatch(/^10\.16\.0\.5\s.*rec1/m);
  });

  it('podman rm runs DEL with the ADD result as prevResult and removes the namespace', async () => {
    const netns = calls().find((c) => c.env.CNI_COMMAND === 'ADD')?.env.CNI_NETNS ?? '';
    await pm.ok(['rm', '--force', '--time', '0', 'rec1']);
    const del = calls().find((c) => c.env.CNI_COMMAND === 'DEL');
    expect(del?.env).toMatchObject({ CNI_IFNAME: 'eth0', CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAME=rec1' });
    expect(del?.config.prevResult).toMatchObject({ ips: [{ address: '10.16.0.5/16', gateway: '10.16.0.1' }] });
    expect(existsSync(netns)).toBe(false);
  });

  it('an ADD result without a MAC makes podman refuse the container (a result our daemon must not give)', async () => {
    writeFileSync(join(dir, 'plugins', 'kovn-record'), recorder(log()).replace("mac: '0a:58:0a:10:00:05', ", ''));
    const r = await pm.command(['run', '--rm', '--name', 'rec2', '--network', 'kovnrec', image, 'true']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/invalid MAC address/);
  });

  it('leaves /etc/cni/net.d and /etc/containers as they were', () => {
    expect(etcSnapshot()).toEqual(etcBefore);
  });
});
