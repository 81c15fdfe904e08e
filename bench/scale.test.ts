/**
 * The scale smoke test (issue 8): a 150,000-port topology over 2,000
 * switches, planned from empty, compiled and probed. Results are asserted;
 * timings are bench/scale.ts's business (`kovn bench scale`).
 */
import { describe, expect, it } from 'vitest';
import { emptyTopology, plan } from '../model/topology/index.ts';
import { compileNetwork } from '../sim/index.ts';
import { probeBetween, scaleTopology } from './scale.ts';

describe('150,000 ports', () => {
  it('plan from empty, compile and probe', { timeout: 180_000 }, () => {
    const ports = 150_000;
    const switches = 2_000;
    const t = scaleTopology(ports, switches);
    const ops = plan(emptyTopology(), t);
    // Every row is one create: ports, switches with their patch port pairs, the router, one group, set and ACL.
    expect(ops).toHaveLength(ports + 3 * switches + 1 + 3);
    expect(ops.every((o) => o.op === 'create')).toBe(true);
    const net = compileNetwork(t);
    expect(net.issues).toEqual([]);
    expect(net.stats?.portsScanned).toBe(ports + 2 * switches);
    // Same switch: delivered straight.
    expect(probeBetween(net, 1, 1 + switches, switches, ports).outputs.map((o) => o.port)).toEqual([
      `pod-${1 + switches}`,
    ]);
    // Across the router.
    const routed = probeBetween(net, 5, 1234, switches, ports);
    expect(routed.outputs.map((o) => o.port)).toEqual(['pod-1234']);
    expect(routed.outputs[0]?.packet['ip.ttl']).toBe(63);
    // pod-100 is in the deny group; pod-7 is not in $web (only every 10th pod is): dropped by the ACL.
    const denied = probeBetween(net, 7, 100, switches, ports);
    expect(denied.verdict).toBe('dropped');
    expect(denied.drop?.stage).toMatch(/acl/);
    // pod-10 is in $web: allowed.
    expect(probeBetween(net, 10, 100, switches, ports).outputs.map((o) => o.port)).toEqual(['pod-100']);
  });
});
