/**
 * The same honest answers on real OVN: a NetworkPolicy that does not
 * translate keeps its pods isolated in what real northd compiled and
 * ovn-trace judges (a policy missing from NB would leave them open).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { OvnWorld } from '../../scenarios/ovn-world.ts';
import { join3, pod, runYaml, scenarioDoc, scratch } from './run-yaml.ts';

const tmp = scratch('honest-ovn');
afterAll(() => tmp.done());

describe.skipIf(!requireOvn('honest answers on real OVN'))('honest answers on real OVN', () => {
  it('a NetworkPolicy with port 99999 or endPort 70000 fails closed on ovn as on sim', async () => {
    const file = tmp.file(
      'np-ovn.yaml',
      join3(
        pod('a'),
        pod('b'),
        pod('c'),
        'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: bad, namespace: default}\nspec: {podSelector: {matchLabels: {app: b}}, ingress: [{ports: [{port: 99999}, {port: 80, endPort: 70000}]}]}\n',
        scenarioDoc('np-ovn', [
          '{from: default/a, to: default/b, protocol: TCP, port: 80, allowed: false}',
          '{from: default/a, to: default/c, protocol: TCP, port: 80, allowed: true}',
        ]),
      ),
    );
    const r = await runYaml(file, await OvnWorld.start());
    expect(r.results.map((x) => [x.allowed, x.unsure !== undefined])).toEqual([
      [false, true],
      [true, false],
    ]);
    expect(r.results[0]!.unsure).toContain('NetworkPolicy default/bad');
  });
});
