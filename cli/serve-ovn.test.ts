import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvn } from '../backends/ovn/control-plane/index.ts';
import { type Serving, startServe } from './serve.ts';

const run = promisify(execFile);
const enabled = requireOvn('kovn sim serve --backend ovn');
let serving: Serving | undefined;

beforeAll(async () => {
  if (!enabled) return;
  serving = await startServe({
    files: ['scenarios/quickstart.yaml'],
    port: 0,
    backend: 'ovn',
    controller: true,
    seed: 1,
  });
});
afterAll(async () => {
  await serving?.close();
});

describe.skipIf(!enabled)('kovn sim serve --backend ovn', () => {
  it('runs the controller on a local NB and names the databases in ConfigMap kube-system/kovn-ovn', async () => {
    const cm = await serving!.cluster.get({ kind: 'ConfigMap', namespace: 'kube-system', name: 'kovn-ovn' });
    const data = cm?.['data'] as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(['nb', 'nbCtl', 'sb', 'sbCtl']);
    // The pod's port is in NB, where the ConfigMap says NB is.
    let ports = '';
    for (let i = 0; i < 100 && !ports.includes('db-0.data'); i++) {
      ports = (
        await run('ovn-nbctl', [`--db=${data['nb']}`, '--columns=name', '--bare', 'list', 'Logical_Switch_Port'])
      ).stdout;
      if (!ports.includes('db-0.data')) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ports).toContain('db-0.data');
    const status = await run('ovs-appctl', ['-t', data['nbCtl']!, 'ovsdb-server/list-dbs']);
    expect(status.stdout).toContain('OVN_Northbound');
  });
});
