/**
 * The conformance lab: one topology that exercises every pipeline feature
 * both backends must agree on. It is the same network the ovn-trace parser's
 * fixtures were recorded on (backends/ovn/trace/trace-cases.ts, built there
 * with ovn-nbctl), here written as model rows so that every backend loads it
 * through its own `apply`.
 *
 *   sw0 10.0.0.0/24 fd00::/64   p1 .2 ::2, p2 .3 ::3, p3 .4; LB 172.30.0.100:80 → .3:8080, .4:8080
 *    │ lrp0 .1 ::1
 *   lr0 ── lrp1 10.0.1.1 fd01::1 ── sw1: q1 10.0.1.2 fd01::2
 *    └── lr0-ext 172.17.0.1 (distributed gateway port, chassis hv1) ── ext2: e2 .50
 *        dnat_and_snat 172.17.0.30 ↔ 10.0.0.2
 *   sw2 10.0.2.0/24: a1 .2, a2 .3; ACLs: from-lport tcp 22 drop, tcp 23 reject, ip4 allow-related; to-lport udp 53
 * reject
 *   gw (gateway router, chassis hv1): gw-in 10.0.3.1 ── sw3: c1 .2; gw-ext 172.16.0.1 ── ext: ext1 .50
 *        snat 10.0.3.0/24 → 172.16.0.10, dnat 172.16.0.20 → 10.0.3.2
 *   sw4 10.0.4.0/24: n1 .2 (port group np.web), n2 .3, n3 .4 (address set allow = n2):
 *        Kube-OVN NetworkPolicy shape: to-lport drop 2000, allow-related 2001 from $allow on tcp 80
 */
import { TopoBuilder, type Topology } from '../../model/topology/index.ts';

export const LAB_MAC = {
  p1: '00:00:00:00:00:01',
  p2: '00:00:00:00:00:02',
  p3: '00:00:00:00:00:03',
  q1: '00:00:00:00:01:01',
  lrp0: '00:00:00:00:ff:00',
  lrp1: '00:00:00:00:ff:01',
  ext: '00:00:00:00:fd:01',
  e2: '00:00:00:00:fd:aa',
  a1: '00:00:00:00:02:01',
  a2: '00:00:00:00:02:02',
  c1: '00:00:00:00:03:02',
  gwIn: '00:00:00:00:fe:02',
  gwExt: '00:00:00:00:fe:01',
  ext1: '00:00:00:00:fe:aa',
  n1: '00:00:00:00:04:01',
  n2: '00:00:00:00:04:02',
  n3: '00:00:00:00:04:03',
  lrp4: '00:00:00:00:ff:04',
} as const;

const M = LAB_MAC;

/** The lab as a model topology. */
export function labTopology(): Topology {
  return new TopoBuilder()
    .lb('lb0', { '172.30.0.100:80': '10.0.0.3:8080,10.0.0.4:8080' }, { protocol: 'tcp' })
    .switch('sw0', ['lb0'])
    .vif('p1', 'sw0', M.p1, '10.0.0.2 fd00::2')
    .vif('p2', 'sw0', M.p2, '10.0.0.3 fd00::3')
    .vif('p3', 'sw0', M.p3, '10.0.0.4')
    .switch('sw1')
    .vif('q1', 'sw1', M.q1, '10.0.1.2 fd01::2')
    .router('lr0')
    .connect('lr0', 'sw0', M.lrp0, ['10.0.0.1/24', 'fd00::1/64'], { lrpName: 'lrp0', lspName: 'sw0-lr0' })
    .connect('lr0', 'sw1', M.lrp1, ['10.0.1.1/24', 'fd01::1/64'], { lrpName: 'lrp1', lspName: 'sw1-lr0' })
    .switch('sw2')
    .vif('a1', 'sw2', M.a1, '10.0.2.2')
    .vif('a2', 'sw2', M.a2, '10.0.2.3')
    .acl('sw2', 'from-lport', 1002, 'tcp && tcp.dst == 22', 'drop')
    .acl('sw2', 'from-lport', 1002, 'tcp && tcp.dst == 23', 'reject')
    .acl('sw2', 'from-lport', 1001, 'ip4', 'allow-related')
    .acl('sw2', 'to-lport', 1003, 'udp && udp.dst == 53', 'reject')
    .router('gw', { chassis: 'hv1' })
    .switch('ext')
    .switch('sw3')
    .vif('ext1', 'ext', M.ext1, '172.16.0.50')
    .connect('gw', 'ext', M.gwExt, ['172.16.0.1/24'], { lrpName: 'gw-ext', lspName: 'ext-gw' })
    .vif('c1', 'sw3', M.c1, '10.0.3.2')
    .connect('gw', 'sw3', M.gwIn, ['10.0.3.1/24'], { lrpName: 'gw-in', lspName: 'sw3-gw' })
    .nat('gw', 'snat', '172.16.0.10', '10.0.3.0/24')
    .nat('gw', 'dnat', '172.16.0.20', '10.0.3.2')
    .switch('ext2')
    .vif('e2', 'ext2', M.e2, '172.17.0.50')
    .connect('lr0', 'ext2', M.ext, ['172.17.0.1/24'], {
      lrpName: 'lr0-ext',
      lspName: 'ext2-lr0',
      gatewayChassis: 'hv1',
    })
    .nat('lr0', 'dnat_and_snat', '172.17.0.30', '10.0.0.2')
    .switch('sw4')
    .vif('n1', 'sw4', M.n1, '10.0.4.2')
    .vif('n2', 'sw4', M.n2, '10.0.4.3')
    .vif('n3', 'sw4', M.n3, '10.0.4.4')
    .connect('lr0', 'sw4', M.lrp4, ['10.0.4.1/24'], { lrpName: 'lrp4', lspName: 'sw4-lr0' })
    .portGroup('np.web', ['n1'])
    .addressSet('np.web.ingress.allow.IPv4.0', ['10.0.4.3', '10.0.1.2'])
    .acl('np.web', 'to-lport', 2000, 'outport == @np.web && ip', 'drop')
    .acl(
      'np.web',
      'to-lport',
      2001,
      'outport == @np.web && ip && ip4.src == $np.web.ingress.allow.IPv4.0 && tcp.dst == 80',
      'allow-related',
    )
    .build();
}

/** The datapath (switch or router) a lab port belongs to, for ovn-trace. */
export function datapathOf(topology: Topology, port: string): string {
  const lsp = topology.switchPort.get(port);
  if (lsp) return lsp.switch;
  const lrp = topology.routerPort.get(port);
  if (lrp) return lrp.router;
  throw new Error(`conformance lab: no port ${JSON.stringify(port)}`);
}
