// The runtime side of the execution protocol, against a plugin that echoes what it got.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatCniArgs, invokePlugin } from './cni-exec.ts';

const dir = mkdtempSync(join(tmpdir(), 'kovn-cniexec-'));
const plugin = join(dir, 'echo-plugin');
writeFileSync(
  plugin,
  `#!${process.execPath}
const input = require('node:fs').readFileSync(0, 'utf8');
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('CNI_')));
if (process.env.CNI_COMMAND === 'CHECK') { console.log(JSON.stringify({ code: 7, msg: 'no' })); process.exit(1); }
console.log(JSON.stringify({ env, config: JSON.parse(input) }));
`,
);
chmodSync(plugin, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('invokePlugin', () => {
  it('sets the CNI_* variables and writes the config on stdin', async () => {
    const r = await invokePlugin({
      plugin,
      command: 'ADD',
      config: { cniVersion: '1.0.0', name: 'n', type: 'echo-plugin' },
      containerId: 'c1',
      netns: '/run/netns/x',
      args: { K8S_POD_NAME: 'a', K8S_POD_NAMESPACE: 'default' },
    });
    expect(r.code).toBe(0);
    expect(r.output).toEqual({
      env: {
        CNI_COMMAND: 'ADD',
        CNI_CONTAINERID: 'c1',
        CNI_NETNS: '/run/netns/x',
        CNI_IFNAME: 'eth0',
        CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAME=a;K8S_POD_NAMESPACE=default',
        CNI_PATH: dir,
      },
      config: { cniVersion: '1.0.0', name: 'n', type: 'echo-plugin' },
    });
    expect(r.ms).toBeGreaterThan(0);
  });

  it("a plugin's failure is an outcome with its code and error body, not an exception", async () => {
    const r = await invokePlugin({ plugin, command: 'CHECK', config: {} });
    expect(r).toMatchObject({ code: 1, output: { code: 7, msg: 'no' } });
  });

  it('a missing executable is an exception naming it', async () => {
    await expect(invokePlugin({ plugin: join(dir, 'none'), command: 'VERSION', config: {} })).rejects.toThrow(
      /none VERSION/,
    );
  });

  it('formats CNI_ARGS as the runtimes do', () => {
    expect(formatCniArgs({})).toBe('IgnoreUnknown=1');
  });
});
