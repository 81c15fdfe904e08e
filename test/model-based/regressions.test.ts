/**
 * Sequences the model-based tests found breaking an invariant, shrunk, kept
 * as they printed (run.ts), each with the cause it showed. Each must pass.
 */
import { describe, expect, it } from 'vitest';
import type { Op } from './ops.ts';
import { checkSequence } from './run.ts';

/** `excused`: the rows (their start) a refused Subnet kept, whose difference from scratch is excused; none by default. */
const REGRESSIONS: readonly {
  readonly name: string;
  readonly ops: readonly Op[];
  readonly excused?: readonly string[];
}[] = [
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
    // the running one keeps the rows of its earlier, valid spec (docs/architecture.md, "Fail closed"): the
    // difference is excused, each row by its cause in the running controller (the refusal it reports).
    name: 'a Subnet moved to a Vpc that does not exist keeps the rows of its earlier spec, excused by its refusal',
    excused: ['switch s1', 'routerPort ovn-cluster-s1', 'switchPort s1-ovn-cluster', 'routerPolicy ovn-cluster|31000'],
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
  {
    // A Subnet deleted while a pod holds one of its addresses stays (its finalizer held): the running
    // controller kept its rows, a controller starting then built none (its pod's port on a missing switch).
    name: 'a Subnet deleted while in use keeps its rows, as a controller starting then builds them',
    ops: [
      { op: 'pod', ns: 'b', name: 'p1' },
      { op: 'subnet', name: 's1', namespaces: ['b'] },
      { op: 'wait', turns: 1, ms: 0 },
      { op: 'delete', kind: 'Subnet', name: 's1' },
      { op: 'netpol', ns: 'default', name: 'np1', shape: 0 },
    ],
  },
  {
    // An IP object deleted by hand while its pod runs: nothing watched IP deletions, so the running
    // controller never wrote it again; a controller starting then does.
    name: "a pod's IP object deleted by hand is written again",
    ops: [
      { op: 'pod', ns: 'b', name: 'web-1' },
      { op: 'wait', turns: 3, ms: 0 },
      { op: 'delete', kind: 'IP', name: 'web-1.b' },
      { op: 'wait', turns: 1, ms: 0 },
    ],
  },
  {
    // Found on real NB (a crash between a commit and the annotation write after it); here the API refusing
    // the annotation patch holds that moment. The next controller restored the lease from the pod's NB port
    // in s2, the pod (never annotated) now goes to ovn-default, and the allocation there was refused for
    // ever ("holds a lease in subnet s2"); a controller starting with the NB empty allocates it.
    name: 'a lease restored from NB for a pod never annotated does not pin it to a subnet it left',
    ops: [
      { op: 'pod', ns: 'b', name: 'p1' },
      { op: 'subnet', name: 's2', namespaces: ['b'] },
      { op: 'refuse', verb: 'patch', kind: 'Pod', times: 3 },
      { op: 'wait', turns: 2, ms: 0 },
      { op: 'subnet', name: 's2', namespaces: [] },
      { op: 'crash' },
    ],
  },
  {
    // The IP object of a deleted pod: its delete, refused once by the API, was not retried (every error was
    // swallowed), so the record stayed until a restart collected it.
    name: "a deleted pod's IP object goes even when the API refuses its first delete",
    ops: [
      { op: 'pod', ns: 'default', name: 'web-1' },
      { op: 'refuse', verb: 'delete', kind: 'IP', times: 1 },
      { op: 'wait', turns: 2, ms: 0 },
      { op: 'delete', kind: 'Pod', ns: 'default', name: 'web-1' },
    ],
  },
  {
    // A pod deleted and re-created under its name on the host network before its delete was seen: the
    // handler left hostNetwork pods alone, so the old pod's port, lease and IP object stayed.
    name: 'a pod re-created on the host network under its old name lets go of the old port',
    ops: [
      { op: 'pod', ns: 'default', name: 'web-0' },
      { op: 'vpc', name: 'v1' },
      { op: 'watch', kind: 'Pod', fault: 'hold' },
      { op: 'delete', kind: 'Pod', ns: 'default', name: 'web-0' },
      { op: 'wait', turns: 1, ms: 0 },
      { op: 'pod', ns: 'default', name: 'web-0', host: true },
      { op: 'pod', ns: 'a', name: 'p1' },
    ],
  },
  {
    // A Subnet whose Vpc went, moved back to the default VPC: the nodes' port groups and reroute policies for
    // it were computed (on the Subnet watch) before its reconcile put it back in the IPAM, and not again.
    name: "a Subnet valid again gets its nodes' port groups and routes",
    ops: [
      { op: 'vpc', name: 'v1' },
      { op: 'subnet', name: 's1', vpc: 'v1', namespaces: [] },
      { op: 'wait', turns: 2, ms: 0 },
      { op: 'delete', kind: 'Vpc', name: 'v1' },
      { op: 'subnet', name: 's1', namespaces: [] },
      { op: 'ns', name: 'b' },
    ],
  },
  {
    // A pod whose annotation patch was refused took a lease in a new Subnet of its namespace, never written to
    // it; the Subnet deleted then stayed (that lease held its finalizer), and when the pod let the lease go for
    // ovn-default nothing judged the Subnet again: its rows stayed for ever (seed 42, MBT_LENGTH=60).
    name: 'a deleted Subnet whose only lease was never annotated goes once the pod lets the lease go',
    ops: [
      { op: 'pod', ns: 'b', name: 'p1' },
      { op: 'refuse', verb: 'patch', kind: 'Pod', times: 1 },
      { op: 'subnet', name: 's1', namespaces: ['b'] },
      { op: 'wait', turns: 1, ms: 0 },
      { op: 'delete', kind: 'Subnet', name: 's1' },
    ],
  },
];

describe('model-based regressions', () => {
  for (const r of REGRESSIONS)
    it(r.name, async () => {
      const v = await checkSequence(r.ops);
      expect(v.violations).toEqual([]);
      expect(v.excused.map((e) => e.split(' (owned by')[0])).toEqual(
        (r.excused ?? []).map((row) => expect.stringContaining(row)),
      );
      for (const e of v.excused) expect(e).toMatch(/Subnet s1 refused and kept \(spec\.vpc: .*Vpc v1 does not exist\)/);
    });
});
