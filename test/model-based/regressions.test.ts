/**
 * Sequences the model-based tests found breaking an invariant, shrunk, kept
 * as they printed (run.ts), each with the cause it showed. Each must pass.
 */
import { describe, expect, it } from 'vitest';
import type { Op } from './ops.ts';
import { checkSequence } from './run.ts';

const REGRESSIONS: readonly { readonly name: string; readonly ops: readonly Op[] }[] = [
  {
    // A deleted Vpc left its router and load balancers in NB: its delete requeued every Vpc the informer
    // still held, which no longer included the deleted one.
    name: 'a Vpc deleted shortly after its creation takes its router and load balancers with it',
    ops: [
      { op: 'vpc', name: 'v1' },
      { op: 'wait', turns: 2, ms: 0 },
      { op: 'delete', kind: 'Vpc', name: 'v1' },
      { op: 'pod', ns: 'default', name: 'p1' },
    ],
  },
  {
    // A Subnet whose Vpc does not exist is refused, and a controller starting now builds nothing for it;
    // the running one kept the rows of its earlier, valid spec (and would keep a deleted Vpc's router port).
    name: 'a Subnet moved to a Vpc that does not exist keeps no rows of its earlier spec',
    ops: [
      { op: 'subnet', name: 's1', namespaces: [] },
      { op: 'wait', turns: 1, ms: 0 },
      { op: 'subnet', name: 's1', vpc: 'v1', namespaces: [] },
      { op: 'svc', ns: 'default', name: 'web' },
    ],
  },
  {
    // A policy's address families come from its namespace's subnets; a Subnet bound to the namespace (here
    // refused, so with no family at all) did not make the policy be computed again.
    name: "a Subnet bound to a policy's namespace recomputes the policy's address families",
    ops: [
      { op: 'netpol', ns: 'a', name: 'np1', shape: 0 },
      { op: 'wait', turns: 1, ms: 0 },
      { op: 'subnet', name: 's1', vpc: 'v1', namespaces: ['a'] },
      { op: 'ns', name: 'default' },
    ],
  },
];

describe('model-based regressions', () => {
  for (const r of REGRESSIONS)
    it(r.name, async () => {
      expect((await checkSequence(r.ops)).violations).toEqual([]);
    });
});
