import { describe, expect, it } from 'vitest';
import { parseResourcePath } from './path.ts';

describe('parseResourcePath', () => {
  it.each([
    ['/api/v1/pods', { group: '', version: 'v1', plural: 'pods', watchPrefix: false }],
    ['/api/v1/namespaces/prod/pods/web', { group: '', version: 'v1', namespace: 'prod', plural: 'pods', name: 'web' }],
    ['/api/v1/namespaces/prod/pods/web/status', { namespace: 'prod', name: 'web', subresource: 'status' }],
    ['/api/v1/namespaces', { plural: 'namespaces' }],
    ['/api/v1/namespaces/prod', { plural: 'namespaces', name: 'prod' }],
    ['/api/v1/namespaces/prod/status', { plural: 'namespaces', name: 'prod', subresource: 'status' }],
    ['/apis/kubeovn.io/v1/subnets/ovn-default', { group: 'kubeovn.io', plural: 'subnets', name: 'ovn-default' }],
    ['/apis/apps/v1/watch/namespaces/a/deployments', { group: 'apps', namespace: 'a', watchPrefix: true }],
    ['/api/v1/namespaces/a/pods/we%2Eb', { name: 'we.b' }],
  ])('%s', (path, want) => {
    expect(parseResourcePath(path)).toMatchObject(want);
  });

  it.each(['/api', '/api/v1', '/apis/apps', '/apis/apps/v1', '/healthz', '/api/v1/a/b/c/d', '/api/v1/pods/%E0'])(
    '%s names no resource',
    (path) => {
      expect(parseResourcePath(path)).toBeUndefined();
    },
  );

  it('keeps a namespaced path from being read as the Namespace', () => {
    expect(parseResourcePath('/api/v1/namespaces/prod/configmaps')).toEqual({
      group: '',
      version: 'v1',
      namespace: 'prod',
      plural: 'configmaps',
      watchPrefix: false,
    });
  });
});
