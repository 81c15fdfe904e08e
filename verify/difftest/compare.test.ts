import { describe, expect, it } from 'vitest';
import { compareObserved, formatDiff, type Observed, type ObservedOutput } from './compare.ts';

const out = (port: string, fields: Record<string, string> = {}): ObservedOutput => ({
  port,
  packet: {
    'eth.src': '0a:00:00:00:00:01',
    'eth.dst': '0a:58:0a:00:00:10',
    'ip4.src': '10.16.0.11',
    'ip4.dst': '10.16.0.10',
    'ip.ttl': '63',
    ...fields,
  },
});
const delivered = (...outputs: ObservedOutput[]): Observed => ({ verdict: 'delivered', outputs });
const dropped: Observed = { verdict: 'dropped', outputs: [] };
const simPath = (o: Observed, path: Partial<NonNullable<Observed['path']>>): Observed => ({
  ...o,
  path: { stages: [], drops: [], lbChoices: 0, ...path },
});

describe('compareObserved', () => {
  it('agrees on equal observations, whatever the order of outputs', () => {
    expect(compareObserved(delivered(out('a'), out('b')), delivered(out('b'), out('a')))).toBeUndefined();
    expect(compareObserved(dropped, dropped)).toBeUndefined();
  });

  it('reports a verdict mismatch with the outputs only one side has', () => {
    const d = compareObserved(delivered(out('a')), dropped);
    expect(d?.verdict).toEqual({ sim: 'delivered', ovn: 'dropped' });
    expect(d?.onlySim.map((o) => o.port)).toEqual(['a']);
    expect(d?.onlyOvn).toEqual([]);
    expect(formatDiff(d!)).toContain('verdict: sim delivered, ovn dropped');
  });

  it('reports ports only one side delivered to (a flood copy missing)', () => {
    const d = compareObserved(delivered(out('a')), delivered(out('a'), out('b')));
    expect(d?.verdict).toBeUndefined();
    expect(d?.onlySim).toEqual([]);
    expect(d?.onlyOvn.map((o) => o.port)).toEqual(['b']);
  });

  it('reports field by field where the packets on the same port differ', () => {
    const d = compareObserved(
      delivered(out('a', { 'ip.ttl': '64', 'tcp.dst': '80' })),
      delivered(out('a', { 'tcp.dst': '8080' })),
    );
    expect(d?.changed).toEqual([
      {
        port: 'a',
        fields: [
          { field: 'ip.ttl', sim: '64', ovn: '63' },
          { field: 'tcp.dst', sim: '80', ovn: '8080' },
        ],
      },
    ]);
    expect(formatDiff(d!)).toBe('a: ip.ttl sim 64 ovn 63, tcp.dst sim 80 ovn 8080');
  });

  it('counts duplicates: two copies on one side and one on the other differ', () => {
    expect(compareObserved(delivered(out('a'), out('a')), delivered(out('a')))?.onlySim).toHaveLength(1);
  });

  it('does not compare whether an output was generated (ovn-trace marks only generating actions)', () => {
    expect(
      compareObserved(delivered({ ...out('a'), generated: 'icmp-echo-reply' }), delivered(out('a'))),
    ).toBeUndefined();
  });
});

describe('partial comparisons (normalize.ts quirks)', () => {
  it('gateway-ct-snat-stops: the simulator must reach lr_in_unsnat of the router, and OVN outputs must be among its own', () => {
    const ovn: Observed = { ...delivered(out('flood')), partial: [{ rule: 'gateway-ct-snat-stops', routers: ['gw'] }] };
    expect(
      compareObserved(simPath(delivered(out('flood'), out('x')), { stages: ['gw/lr_in_unsnat'] }), ovn),
    ).toBeUndefined();
    expect(compareObserved(simPath(delivered(out('flood'), out('x')), { stages: [] }), ovn)?.verdict?.sim).toContain(
      'did not reach lr_in_unsnat of gw',
    );
    expect(
      compareObserved(simPath(delivered(out('x')), { stages: ['gw/lr_in_unsnat'] }), ovn)?.onlyOvn.map((o) => o.port),
    ).toEqual(['flood']);
  });

  it('port-sec-prefix-exact: the simulator must not drop at the port security ovn-trace misjudged', () => {
    const ovn: Observed = {
      ...dropped,
      partial: [
        { rule: 'port-sec-prefix-exact', at: [{ datapath: 'ls0', stage: 'ls_in_apply_port_sec', port: 'p1' }] },
      ],
    };
    expect(compareObserved(simPath(delivered(out('p2')), {}), ovn)).toBeUndefined();
    const d = compareObserved(simPath(dropped, { drops: ['ls0/ls_in_apply_port_sec'] }), ovn);
    expect(d?.verdict?.sim).toContain('dropped at ls0 ls_in_apply_port_sec (p1)');
    expect(d?.partial).toBe('port-sec-prefix-exact');
  });

  it('chk-lb-hairpin-vip-port: the simulator must hairpin at the switch; OVN outputs after it are not compared', () => {
    const ovn: Observed = { ...dropped, partial: [{ rule: 'chk-lb-hairpin-vip-port', switch: 'ls0' }] };
    expect(compareObserved(simPath(delivered(out('p1')), { stages: ['ls0/ls_in_pre_hairpin'] }), ovn)).toBeUndefined();
    expect(compareObserved(simPath(delivered(out('p1')), { stages: [] }), ovn)?.verdict?.sim).toContain(
      'did not hairpin at ls0',
    );
  });

  it('lb-dst-early-dnat: without an OVN verdict the simulator must at least load-balance', () => {
    const ovn: Observed = { ...dropped, partial: [{ rule: 'lb-dst-early-dnat', detail: 'diverged' }] };
    expect(compareObserved(simPath(dropped, { lbChoices: 1 }), ovn)).toBeUndefined();
    expect(compareObserved(simPath(delivered(out('p1')), { lbChoices: 0 }), ovn)?.verdict?.sim).toContain(
      'made no load-balancer choice',
    );
  });

  it('ct-states-consumed is not partial: everything is compared', () => {
    const ovn: Observed = {
      ...delivered(out('a')),
      partial: [{ rule: 'ct-states-consumed', detail: 'new,trk rel,rpl,trk' }],
    };
    expect(compareObserved(simPath(delivered(out('a')), {}), ovn)).toBeUndefined();
    expect(compareObserved(simPath(dropped, {}), ovn)?.verdict).toEqual({ sim: 'dropped', ovn: 'delivered' });
  });

  it('partial comparisons still compare the verdict and, where only generated replies are unknown, extra outputs', () => {
    const gen: Observed = {
      ...delivered(out('a')),
      partial: [{ rule: 'generated-packets', at: [{ datapath: 'ls0', stage: 'ls_in_acl' }] }],
    };
    const reached = { stages: ['ls0/ls_in_acl'] };
    expect(compareObserved(simPath(delivered(out('a')), reached), gen)).toBeUndefined();
    // A generated reply of the simulator's is within the unknown part; a forwarded copy OVN lacks is not.
    expect(
      compareObserved(simPath(delivered(out('a'), { ...out('b'), generated: 'icmp-error' }), reached), gen),
    ).toBeUndefined();
    expect(compareObserved(simPath(delivered(out('a'), out('b')), reached), gen)?.onlySim.map((o) => o.port)).toEqual([
      'b',
    ]);
    // What OVN's own outputs show delivered, the simulator must deliver.
    const stops: Observed = { ...delivered(out('a')), partial: [{ rule: 'gateway-ct-snat-stops', routers: ['lr0'] }] };
    const d = compareObserved(simPath(dropped, { stages: ['lr0/lr_in_unsnat'] }), stops);
    expect(d?.verdict?.sim).toContain('dropped what OVN delivers');
  });
});
