import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAction } from './actions.ts';
import { leafComment } from './comments.ts';
import { TraceParseError } from './errors.ts';
import { parseFlowLine } from './flow-line.ts';
import { parseTrace, type TraceNode } from './parse.ts';

const read = (name: string) => readFileSync(new URL(`./fixtures/${name}.txt`, import.meta.url), 'utf8');
const at = { line: 1, text: '' };

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof TraceParseError ? e.code : `not a TraceParseError: ${String(e)}`;
  }
  return undefined;
}

const FLOW =
  '# udp,reg14=0x1,vlan_tci=0x0000,dl_src=00:00:00:00:00:01,dl_dst=00:00:00:00:00:02,nw_src=10.0.0.2,nw_dst=10.0.0.3,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1,tp_dst=2';

describe('parseTrace (ovn-trace --detailed of OVN 23.03)', () => {
  it('reads the stages of a routed trace in order, with datapath, pipeline, table, match, priority, uuid', () => {
    const t = parseTrace(read('routed'));
    expect(t.flow).toMatch(/^tcp,reg14=0x[0-9a-f]+,vlan_tci=0x0000,dl_src=00:00:00:00:00:01,/);
    const path = t.stages.map((s) => `${s.datapath}/${s.pipeline}/${s.stage}`);
    expect(path[0]).toBe('sw0/ingress/ls_in_check_port_sec');
    expect(path).toContain('lr0/ingress/lr_in_ip_routing');
    expect(path).toContain('lr0/egress/lr_out_delivery');
    expect(path.at(-1)).toBe('sw1/egress/ls_out_apply_port_sec');
    const routing = t.stages.find((s) => s.stage === 'lr_in_ip_routing')!;
    expect(routing).toMatchObject({
      table: 13,
      priority: 74,
      match: 'ip4.dst == 10.0.1.0/24',
      pipeline: 'ingress',
      datapath: 'lr0',
    });
    expect(routing.uuid).toMatch(/^[0-9a-f]{8}$/);
    expect(routing.source).toMatch(/^northd\.c:\d+$/);
    expect(routing.actions).toEqual([
      'ip.ttl--;',
      'reg8[0..15] = 0;',
      'reg0 = ip4.dst;',
      'reg1 = 10.0.1.1;',
      'eth.src = 00:00:00:00:ff:01;',
      'outport = "lrp1";',
      'flags.loopback = 1;',
      'next;',
    ]);
    // Deeper with each pipeline and transformation: sw0 ingress (0), its ct_lb_mark (1), egress (2), lr0 ... sw1.
    expect(t.stages.map((s) => s.depth).filter((d, i, a) => d !== a[i - 1])).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('builds the tree from the indentation: a multicast group holds one egress pipeline per member', () => {
    const t = parseTrace(read('broadcast-flood'));
    const find = (nodes: readonly TraceNode[]): TraceNode | undefined => {
      for (const n of nodes) {
        if (n.kind === 'pipeline' && n.pipeline === 'multicast') return n;
        const inner = n.kind === 'leaf' ? undefined : find(n.children);
        if (inner) return inner;
      }
      return undefined;
    };
    const mc = find(t.root);
    expect(mc).toMatchObject({ kind: 'pipeline', pipeline: 'multicast', datapath: 'sw0', mcgroup: '_MC_flood' });
    const members = mc!.kind === 'pipeline' ? mc!.children : [];
    expect(members.map((m) => (m.kind === 'pipeline' ? m.outport : m.kind)).sort()).toEqual([
      'p1',
      'p2',
      'p3',
      'sw0-lr0',
    ]);
  });

  it('reads transformations (ct_next, ct_lb_mark, ct_dnat, icmp4, nd_ns) as sub-trees', () => {
    const titles = (name: string) => {
      const out: string[] = [];
      const walk = (ns: readonly TraceNode[]) =>
        ns.forEach((n) => (n.kind === 'transform' && out.push(n.text), n.kind !== 'leaf' && walk(n.children)));
      walk(parseTrace(read(name)).root);
      return out;
    };
    expect(titles('acl-allow-related')).toEqual(['ct_next(ct_state=new|trk)', 'ct_next(ct_state=new|trk)']);
    expect(titles('gw-dnat-inbound')).toContain('ct_dnat(ip4.dst=10.0.3.2)');
    expect(titles('gw-dnat-inbound')).toContain('ct_dnat /* assuming no un-dnat entry, so no change */');
    expect(titles('dgp-fip-outbound')).toContain('ct_snatin_czone(ip4.src=172.17.0.30)');
    expect(titles('ttl-exceeded')).toEqual(['ct_lb_mark', 'icmp4', 'ct_lb_mark']); // sw0 has a load balancer
    expect(titles('nd-ns-for-unknown-nexthop')).toEqual(['ct_lb_mark', 'nd_ns']);
  });

  it('reads "no match (implicit drop)" tables and two-digit table numbers', () => {
    const text = [
      FLOW,
      '',
      'ingress(dp="sw0", inport="p1")',
      '------------------------------',
      ' 0. ls_in_check_port_sec (northd.c:8432): 1, priority 50, uuid 335db7e0',
      '    next;',
      '12. ls_in_lb: no match (implicit drop)',
    ].join('\n');
    const t = parseTrace(text);
    expect(t.stages.map((s) => [s.table, s.stage, s.match])).toEqual([
      [0, 'ls_in_check_port_sec', '1'],
      [12, 'ls_in_lb', undefined],
    ]);
  });

  it('rejects what is not a detailed trace, naming the line', () => {
    expect(codeOf(() => parseTrace('unknown datapath "nosuch"\n'))).toBe('not-a-trace');
    expect(
      codeOf(() =>
        parseTrace(
          `${FLOW}\n# Detailed trace.\n\ningress(dp="a", inport="b")\n---------------------------\n# Summary trace.\n`,
        ),
      ),
    ).toBe('unsupported-format');
    const badIndent = [
      FLOW,
      '',
      'ingress(dp="sw0", inport="p1")',
      '------------------------------',
      ' 0. x (y): 1, priority 1, uuid 00000000',
      '      next;',
    ].join('\n');
    expect(codeOf(() => parseTrace(badIndent))).toBe('bad-indent');
    const title = [
      FLOW,
      '',
      'ingress(dp="sw0", inport="p1")',
      '------------------------------',
      ' 0. x (y): 1, priority 1, uuid 00000000',
      '    frob;',
      '',
      'frobnicate',
      '----------',
    ].join('\n');
    expect(codeOf(() => parseTrace(title))).toBe('unknown-title');
    try {
      parseTrace(title);
    } catch (e) {
      expect((e as TraceParseError).line).toBe(8);
    }
  });
});

describe('parseAction', () => {
  it('loads, moves, exchanges, subfields and registers', () => {
    expect(parseAction('xreg0[0..47] = 00:00:00:00:ff:00;', at)).toMatchObject({
      op: 'assign',
      dst: { storage: 'xxreg0', offset: 64, width: 48 },
      src: { kind: 'const', value: 0xff00n },
    });
    expect(parseAction('reg0 = ip4.dst;', at)).toMatchObject({
      op: 'assign',
      dst: { storage: 'xxreg0', offset: 96, width: 32 },
      src: { kind: 'field', ref: { storage: 'ip4.dst' } },
    });
    expect(parseAction('eth.dst <-> eth.src;', at)).toMatchObject({
      op: 'exchange',
      a: { storage: 'eth.dst' },
      b: { storage: 'eth.src' },
    });
    expect(parseAction('ip6.src = fd00::3;', at)).toMatchObject({
      op: 'assign',
      src: { kind: 'const', value: (0xfd00n << 112n) | 3n },
    });
    expect(parseAction('reg0[15] = check_in_port_sec();', at)).toMatchObject({
      op: 'assign',
      src: { kind: 'opaque', fn: 'check_in_port_sec' },
    });
    expect(parseAction('ip.ttl--;', at)).toEqual({ op: 'dec-ttl' });
    expect(parseAction('outport = inport;', at)).toEqual({ op: 'port' });
    expect(parseAction('outport <-> inport;', at)).toEqual({ op: 'port' });
    expect(parseAction('icmp4.frag_mtu = 1442;', at)).toEqual({ op: 'noop', name: 'icmp4.frag_mtu' });
  });

  it('names ct, nested and control actions', () => {
    expect(parseAction('ct_lb_mark(backends=10.0.0.3:8080,10.0.0.4:8080);', at)).toEqual({
      op: 'ct',
      name: 'ct_lb_mark',
      args: 'backends=10.0.0.3:8080,10.0.0.4:8080',
    });
    expect(parseAction('ct_commit { ct_mark.blocked = 0; };', at)).toEqual({ op: 'ct', name: 'ct_commit' });
    expect(parseAction('ct_snat;', at)).toEqual({ op: 'ct', name: 'ct_snat' });
    expect(parseAction('reject { outport <-> inport; next(pipeline=egress, table=5); };', at)).toEqual({
      op: 'nested',
      name: 'reject',
    });
    expect(parseAction('next(pipeline=ingress, table=25);', at)).toEqual({ op: 'next' });
    expect(parseAction('drop;', at)).toEqual({ op: 'drop' });
    expect(parseAction('get_arp(outport, reg0);', at)).toEqual({ op: 'get-mac-bind' });
  });

  it('refuses what it does not know', () => {
    expect(codeOf(() => parseAction('frobnicate(1);', at))).toBe('unknown-action');
    expect(codeOf(() => parseAction('nosuch.field = 1;', at))).toBe('unknown-action');
    expect(codeOf(() => parseAction('reg0 = mystery();', at))).toBe('unknown-action');
    expect(codeOf(() => parseAction('eth.src = "p1";', at))).toBe('unknown-action');
  });
});

describe('leafComment', () => {
  const leaf = (text: string) => ({ kind: 'leaf' as const, line: 3, text });
  it("knows ovn-trace's comments and errors by their text", () => {
    expect(leafComment(leaf('/* output to "p\\"2", type "localnet" */'))).toEqual({
      kind: 'output',
      port: 'p"2',
      type: 'localnet',
    });
    expect(leafComment(leaf('/* MAC binding to 00:00:00:00:01:01. */'))).toEqual({ kind: 'mac-binding', mac: 0x101 });
    expect(leafComment(leaf('/* No MAC binding. */'))).toEqual({ kind: 'mac-binding', mac: 0 });
    expect(leafComment(leaf('*** TTL underflow'))).toEqual({ kind: 'ttl-underflow' });
    expect(leafComment(leaf('/* nat(src=172.30.0.100) */'))).toEqual({ kind: 'nat-src', vip: '172.30.0.100' });
    expect(leafComment(leaf('*** unknown port or multicast group 7'))).toEqual({ kind: 'error' });
    expect(codeOf(() => leafComment(leaf('/* something new */')))).toBe('unknown-comment');
  });
});

describe('parseFlowLine', () => {
  it('reads OVS flow syntax back into packet fields', () => {
    expect(parseFlowLine(FLOW)).toEqual({
      'eth.type': 0x800,
      'ip.proto': 17,
      'eth.src': 1,
      'eth.dst': 2,
      'ip4.src': 0x0a000002,
      'ip4.dst': 0x0a000003,
      'ip.dscp': 0,
      'ip.ecn': 0,
      'ip.ttl': 64,
      'ip.frag': 0,
      'udp.src': 1,
      'udp.dst': 2,
    });
    const tcp = parseFlowLine(
      '# tcp,reg14=0x1,dl_vlan=100,dl_vlan_pcp=5,vlan_tci1=0x0000,dl_src=00:00:00:00:00:01,dl_dst=00:00:00:00:00:02,nw_src=1.1.1.1,nw_dst=2.2.2.2,nw_tos=40,nw_ecn=0,nw_ttl=1,nw_frag=first,tp_src=1,tp_dst=2,tcp_flags=syn|ack|[800]',
    );
    expect(tcp).toMatchObject({
      'vlan.tci': 0x1000 | (5 << 13) | 100,
      'ip.dscp': 10,
      'ip.frag': 1,
      'tcp.flags': 0x812,
    });
    expect(
      parseFlowLine('# reg14=0x1,vlan_tci=0x0000,dl_src=00:00:00:00:00:01,dl_dst=00:00:00:00:00:02,dl_type=0x88cc'),
    ).toEqual({ 'eth.src': 1, 'eth.dst': 2, 'eth.type': 0x88cc });
  });

  it('refuses unknown fields', () => {
    expect(codeOf(() => parseFlowLine('# tcp,frob=1,dl_src=00:00:00:00:00:01,dl_dst=00:00:00:00:00:02'))).toBe(
      'bad-flow-line',
    );
    expect(
      codeOf(() => parseFlowLine('# tcp,nw_frag=sometimes,dl_src=00:00:00:00:00:01,dl_dst=00:00:00:00:00:02')),
    ).toBe('bad-flow-line');
  });
});
