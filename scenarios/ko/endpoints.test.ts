import { describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { KoError, need, resolveEndpoints } from './endpoints.ts';

async function withConfigMap(data: Record<string, string>): Promise<MemoryCluster> {
  const c = new MemoryCluster();
  await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } });
  await c.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'kube-system', name: 'kovn-ovn' },
    data,
  } as KubeObject);
  return c;
}

describe('where kovn ko finds the databases', () => {
  it('flags first, then the ConfigMap, then the environment, each saying where it came from', async () => {
    const cluster = await withConfigMap({
      nb: 'unix:/cm/nb.sock',
      sb: 'unix:/cm/sb.sock',
      nbCtl: '/a.ctl, /b.ctl,/c.ctl',
    });
    const env = { OVN_NB_DB: 'unix:/env/nb.sock', OVN_SB_DB: 'unix:/env/sb.sock' };
    const e = await resolveEndpoints({ flags: { nb: 'tcp:127.0.0.1:6641' }, env, cluster });
    expect(e).toEqual({
      nb: { value: 'tcp:127.0.0.1:6641', from: 'flag' },
      sb: { value: 'unix:/cm/sb.sock', from: 'configmap' },
      nbCtl: { value: ['/a.ctl', '/b.ctl', '/c.ctl'], from: 'configmap' },
    });
    const noCluster = await resolveEndpoints({ flags: {}, env });
    expect(noCluster.sb).toEqual({ value: 'unix:/env/sb.sock', from: 'env' });
  });

  it('a cluster without the ConfigMap, and an empty value, count as not given', async () => {
    const bare = new MemoryCluster();
    expect(await resolveEndpoints({ flags: {}, env: { OVN_NB_DB: '' }, cluster: bare })).toEqual({});
    const empty = await withConfigMap({ nb: '' });
    expect(await resolveEndpoints({ flags: {}, env: {}, cluster: empty })).toEqual({});
  });

  it('need: the value, or a KoError naming what is missing and how to give it', () => {
    expect(need({ nb: { value: 'unix:/x', from: 'flag' } }, 'nb')).toBe('unix:/x');
    expect(() => need({}, 'sbCtl')).toThrow(KoError);
    expect(() => need({}, 'sbCtl')).toThrow(/no sbCtl: give --sb-ctl/);
  });
});
