import { describe, expect, it } from 'vitest';
import { SimBackend } from '../../backends/sim/index.ts';
import { parseSubnetSpec, type SubnetConfig } from '../../model/ipam/index.ts';
import { printMatch } from '../../model/match/index.ts';
import { buildTopology, emptyTopology, plan, validateTopology } from '../../model/topology/index.ts';
import { tcpPacket } from '../../model/packet/index.ts';
import { DesiredState } from '../../controller/desired/store.ts';
import {
  networkPolicyRows,
  podAnnotations,
  podPortRow,
  serviceVips,
  subnetRows,
  vpcLoadBalancerRows,
  vpcLoadBalancers,
  vpcRows,
  nodeRows,
  podNodeMemberships,
} from '../../controller/translate/index.ts';

function config(spec: Parameters<typeof parseSubnetSpec>[0]): SubnetConfig {
  const r = parseSubnetSpec(spec);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value;
}

const base = {
  router: 'ovn-cluster',
  gatewayMac: '0a:58:0a:10:00:01',
  nodeSwitchCidr: '100.64.0.0/16',
  loadBalancers: [],
};

describe('subnetRows', () => {
  it('a dual-stack subnet: switch, patch ports named as Kube-OVN names them, gateway of each family', () => {
    const { value, issues } = subnetRows({
      ...base,
      config: config({ name: 'ovn-default', cidrBlock: '10.16.0.0/16,fd00:10:16::/64' }),
      loadBalancers: ['cluster-tcp-loadbalancer'],
    });
    expect(issues).toEqual([]);
    expect(value.switch).toMatchObject({ name: 'ovn-default', loadBalancers: ['cluster-tcp-loadbalancer'] });
    expect(value.routerPort).toMatchObject({
      name: 'ovn-cluster-ovn-default',
      router: 'ovn-cluster',
      networks: ['10.16.0.1/16', 'fd00:10:16::1/64'],
    });
    expect(value.switchPort).toMatchObject({
      name: 'ovn-default-ovn-cluster',
      type: 'router',
      addresses: ['router'],
      options: { 'router-port': 'ovn-cluster-ovn-default' },
    });
    expect(value.acls).toEqual([]);
    expect(
      subnetRows({
        ...base,
        config: config({ name: 'x', cidrBlock: '10.1.0.0/24' }),
        enableLb: false,
        loadBalancers: ['lb'],
      }).value.switch.loadBalancers,
    ).toEqual([]);
  });

  it('a private subnet gets Kube-OVN drop 1000, allow 1001 (own CIDR and allowSubnets of its family), node allow 3000', () => {
    const { value } = subnetRows({
      ...base,
      config: config({ name: 'priv', cidrBlock: '10.66.0.0/16', gateway: '10.66.0.1' }),
      private: true,
      allowSubnets: ['10.16.0.0/16', 'fd00::/64', ' '],
    });
    const printed = value.acls.map((a) => [a.direction, a.priority, a.action, printMatch(a.match)]);
    expect(printed).toEqual([
      ['to-lport', 1000, 'drop', 'ip'],
      ['to-lport', 1001, 'allow-related', 'ip4.src == 10.66.0.0/16 && ip4.dst == 10.66.0.0/16'],
      ['to-lport', 3000, 'allow-related', 'ip4.src == 100.64.0.0/16'],
      [
        'to-lport',
        1001,
        'allow-related',
        '(ip4.src == 10.66.0.0/16 && ip4.dst == 10.16.0.0/16) || (ip4.src == 10.16.0.0/16 && ip4.dst == 10.66.0.0/16)',
      ],
    ]);
    expect(value.acls[0]).toMatchObject({ name: 'priv', log: true, severity: 'warning' });
  });

  it("the Subnet's own acls: good ones kept, each bad one reported with its field and left out", () => {
    const { value, issues } = subnetRows({
      ...base,
      config: config({ name: 's1', cidrBlock: '10.1.0.0/24' }),
      allowEWTraffic: true,
      acls: [
        { direction: 'to-lport', priority: 1200, match: 'ip4.src == 10.2.0.0/24', action: 'drop' },
        { direction: 'sideways', priority: 1, match: 'ip', action: 'drop' },
        { direction: 'to-lport', priority: 1, match: 'ip4.src ==', action: 'drop' },
        { direction: 'to-lport', priority: 40000, match: 'ip', action: 'drop' },
        { direction: 'to-lport', priority: 1, match: 'ip', action: 'explode' },
      ],
    });
    expect(value.acls.map((a) => [a.direction, a.priority, a.action])).toEqual([
      ['to-lport', 1900, 'allow'],
      ['from-lport', 1900, 'allow'],
      ['to-lport', 1200, 'drop'],
    ]);
    expect(value.acls.every((a) => a.externalIds.subnet === 's1')).toBe(true);
    expect(issues.map((i) => [i.code, i.object, i.field])).toEqual([
      ['invalid-value', 'Subnet/s1', 'spec.acls[1].direction'],
      ['invalid-match', 'Subnet/s1', 'spec.acls[2].match'],
      ['invalid-value', 'Subnet/s1', 'spec.acls[3].priority'],
      ['invalid-value', 'Subnet/s1', 'spec.acls[4].action'],
    ]);
  });
});

describe('vpcRows', () => {
  it('router, static routes (policySrc → src-ip) and policy routes; bad entries reported by field', () => {
    const { value, issues } = vpcRows({
      name: 'vpc1',
      staticRoutes: [
        { cidr: '0.0.0.0/0', nextHopIP: '10.0.1.254' },
        { policy: 'policySrc', cidr: '10.0.2.0/24', nextHopIP: '10.0.1.253', routeTable: 'rt1' },
        { cidr: 'nope', nextHopIP: '10.0.1.1' },
      ],
      policyRoutes: [
        { priority: 100, match: 'ip4.src == 10.0.1.0/24', action: 'reroute', nextHopIP: '10.0.1.252' },
        { priority: 90, match: 'ip4.dst ==', action: 'drop' },
        { priority: 80, match: 'ip', action: 'reroute' },
      ],
    });
    expect(value.router.name).toBe('vpc1');
    expect(value.staticRoutes.map((r) => [r.ipPrefix, r.nexthop, r.policy, r.routeTable])).toEqual([
      ['0.0.0.0/0', '10.0.1.254', 'dst-ip', ''],
      ['10.0.2.0/24', '10.0.1.253', 'src-ip', 'rt1'],
    ]);
    expect(value.policies).toMatchObject([{ priority: 100, action: 'reroute', nexthops: ['10.0.1.252'] }]);
    expect(issues.map((i) => i.field)).toEqual([
      'spec.staticRoutes[2].cidr',
      'spec.policyRoutes[1].match',
      'spec.policyRoutes[2].nextHopIP',
    ]);
  });

  it("load balancer names: the cluster ones for the default VPC, Kube-OVN's vpc-<name>-<proto>-load otherwise", () => {
    const cluster = {
      tcp: 'cluster-tcp-loadbalancer',
      udp: 'cluster-udp-loadbalancer',
      sctp: 'cluster-sctp-loadbalancer',
      tcpSession: 'cluster-tcp-session-loadbalancer',
      udpSession: 'cluster-udp-session-loadbalancer',
      sctpSession: 'cluster-sctp-session-loadbalancer',
    };
    expect(vpcLoadBalancers('ovn-cluster', 'ovn-cluster', cluster)).toBe(cluster);
    expect(vpcLoadBalancers('v2', 'ovn-cluster', cluster)).toMatchObject({
      tcp: 'vpc-v2-tcp-load',
      udpSession: 'vpc-v2-udp-sess-load',
    });
  });
});

describe('translated rows on the simulator', () => {
  it('two subnets of one VPC route to each other; a private one drops what its ACLs do not allow', async () => {
    const vpc = vpcRows({ name: 'ovn-cluster' }).value;
    const pub = subnetRows({ ...base, config: config({ name: 'pub', cidrBlock: '10.16.0.0/16' }) }).value;
    const priv = subnetRows({
      ...base,
      gatewayMac: '0a:58:0a:42:00:01',
      config: config({ name: 'priv', cidrBlock: '10.66.0.0/16' }),
      private: true,
      allowSubnets: ['10.16.5.0/24'],
    }).value;
    const pod = (name: string, sw: string, mac: string, ip: string) => ({
      name,
      switch: sw,
      type: '' as const,
      addresses: [`${mac} ${ip}`],
      portSecurity: [],
      options: {},
      externalIds: {},
    });
    const { topology, issues } = buildTopology({
      router: [vpc.router],
      switch: [pub.switch, priv.switch],
      routerPort: [pub.routerPort, priv.routerPort],
      switchPort: [
        pub.switchPort,
        priv.switchPort,
        pod('a.default', 'pub', '0a:58:0a:10:00:02', '10.16.0.2'),
        pod('b.default', 'pub', '0a:58:0a:10:05:02', '10.16.5.2'),
        pod('c.secret', 'priv', '0a:58:0a:42:00:02', '10.66.0.2'),
      ],
      acl: [...priv.acls],
    });
    expect(issues).toEqual([]);
    expect(validateTopology(topology)).toEqual([]);
    const sim = new SimBackend();
    await sim.apply(plan(emptyTopology(), topology));
    const send = (inport: string, src: string, srcMac: string) =>
      sim.probe({
        inport,
        packet: tcpPacket({
          ethSrc: srcMac,
          ethDst: '0a:58:0a:10:00:01',
          src,
          dst: '10.66.0.2',
          sport: 40000,
          dport: 80,
        }),
      });
    // 10.16.5.2 is in allowSubnets, 10.16.0.2 is not.
    expect((await send('b.default', '10.16.5.2', '0a:58:0a:10:05:02')).verdict).toBe('delivered');
    expect((await send('a.default', '10.16.0.2', '0a:58:0a:10:00:02')).verdict).toBe('dropped');
  });
});

describe('networkPolicyRows', () => {
  const web = {
    port: 'web-0.prod-ns',
    ips: ['10.16.0.5'],
    namedPorts: new Map([['http', { protocol: 'TCP' as const, port: 8080 }]]),
  };
  const api = {
    port: 'api-0.prod-ns',
    ips: ['10.16.0.6'],
    namedPorts: new Map([['http', { protocol: 'TCP' as const, port: 80 }]]),
  };

  it("Kube-OVN's names, priorities and apply-after-lb on egress; a named port resolved per destination pod", () => {
    const { value, issues } = networkPolicyRows({
      name: 'allow-web',
      namespace: 'prod-ns',
      selected: [web, api],
      families: ['IPv4'],
      ingress: [{ peers: [{ kind: 'pods', pods: [api] }], ports: [{ protocol: 'TCP', port: 'http' }] }],
      egress: [{ ports: [] }],
    });
    expect(issues).toEqual([]);
    expect(value.portGroup).toEqual({
      name: 'allow.web.prod.ns',
      ports: ['web-0.prod-ns', 'api-0.prod-ns'],
      externalIds: { np: 'prod-ns/allow-web' },
    });
    expect(value.addressSets.map((s) => [s.name, s.addresses])).toEqual([
      ['allow.web.prod.ns.ingress.allow.IPv4.0', ['10.16.0.6']],
      ['allow.web.prod.ns.ingress.except.IPv4.0', []],
      ['allow.web.prod.ns.egress.allow.IPv4.0', ['0.0.0.0/0']],
      ['allow.web.prod.ns.egress.except.IPv4.0', []],
    ]);
    const printed = value.acls.map((a) => [a.direction, a.priority, a.action, printMatch(a.match), a.options]);
    expect(printed).toEqual([
      ['to-lport', 2000, 'drop', 'outport == @allow.web.prod.ns && ip', {}],
      [
        'to-lport',
        2001,
        'allow-related',
        'outport == @allow.web.prod.ns && ip && ip4.src == $allow.web.prod.ns.ingress.allow.IPv4.0 && ip4.src != $allow.web.prod.ns.ingress.except.IPv4.0 && tcp.dst == 80 && outport == {"api-0.prod-ns"}',
        {},
      ],
      [
        'to-lport',
        2001,
        'allow-related',
        'outport == @allow.web.prod.ns && ip && ip4.src == $allow.web.prod.ns.ingress.allow.IPv4.0 && ip4.src != $allow.web.prod.ns.ingress.except.IPv4.0 && tcp.dst == 8080 && outport == {"web-0.prod-ns"}',
        {},
      ],
      ['from-lport', 2000, 'drop', 'inport == @allow.web.prod.ns && ip', { 'apply-after-lb': 'true' }],
      [
        'from-lport',
        2001,
        'allow-related',
        'inport == @allow.web.prod.ns && ip && ip4.dst == $allow.web.prod.ns.egress.allow.IPv4.0 && ip4.dst != $allow.web.prod.ns.egress.except.IPv4.0',
        { 'apply-after-lb': 'true' },
      ],
    ]);
    expect(value.acls[0]?.name).toBe('prod-ns/allow-web');
  });

  it('ipBlock excepts stay inside their block; a bad CIDR or an except outside the block is reported', () => {
    const { value, issues } = networkPolicyRows({
      name: 'blocks',
      namespace: 'default',
      selected: [web],
      families: ['IPv4'],
      ingress: [
        {
          peers: [
            { kind: 'ipBlock', cidr: '10.0.0.0/16', except: ['10.0.1.0/24', '10.9.0.0/24'] },
            { kind: 'ipBlock', cidr: '10.0.1.0/28', except: [] },
            { kind: 'ipBlock', cidr: 'ten/8', except: [] },
          ],
          ports: [],
        },
      ],
    });
    expect(issues.map((i) => i.field)).toEqual([
      'spec.ingress[0].peers[0].ipBlock.except[1]',
      'spec.ingress[0].peers[2].ipBlock.cidr',
    ]);
    expect(value.acls.map((a) => printMatch(a.match))).toContain(
      'outport == @blocks.default && ip && ((ip4.src == 10.0.0.0/16 && ip4.src != {10.0.1.0/24}) || ip4.src == 10.0.1.0/28)',
    );
  });

  it('a direction whose rules allow nothing still gets an allow-related ACL (a drop-only switch is stateless in OVN)', () => {
    const { value } = networkPolicyRows({
      name: 'nobody',
      namespace: 'default',
      selected: [web],
      families: ['IPv4'],
      ingress: [{ peers: [{ kind: 'pods', pods: [] }], ports: [{ protocol: 'TCP', port: 'no-such-name' }] }],
    });
    expect(value.acls.map((a) => [a.priority, a.action])).toEqual([
      [2000, 'drop'],
      [2001, 'allow-related'],
    ]);
    expect(value.addressSets.find((s) => s.name.endsWith('.all'))?.addresses).toEqual([]);
  });
});

describe('serviceVips', () => {
  const lbs = vpcLoadBalancers('ovn-cluster', 'ovn-cluster', {
    tcp: 'cluster-tcp-loadbalancer',
    udp: 'cluster-udp-loadbalancer',
    sctp: 'cluster-sctp-loadbalancer',
    tcpSession: 'cluster-tcp-session-loadbalancer',
    udpSession: 'cluster-udp-session-loadbalancer',
    sctpSession: 'cluster-sctp-session-loadbalancer',
  });
  const slices = [
    {
      ports: [
        { name: 'http', port: 8080, protocol: 'TCP' as const },
        { name: 'dns', port: 5353, protocol: 'UDP' as const },
      ],
      endpoints: [
        { addresses: ['10.16.0.5', 'fd00::5'] },
        { addresses: ['10.16.0.6'], ready: true },
        { addresses: ['10.16.0.7'], ready: false },
      ],
    },
    // Another slice: pods that give the named target port another number.
    { ports: [{ name: 'http', port: 80, protocol: 'TCP' as const }], endpoints: [{ addresses: ['10.16.0.8'] }] },
  ];

  it('one VIP per cluster IP and port on the load balancer of its protocol, ready endpoints of its family only', () => {
    const out = serviceVips(
      {
        clusterIPs: ['10.96.0.10', 'fd00:96::10'],
        ports: [
          { name: 'http', protocol: 'TCP', port: 80 },
          { name: 'dns', protocol: 'UDP', port: 53 },
          { name: 'none', protocol: 'TCP', port: 9 },
        ],
      },
      slices,
      lbs,
    );
    expect(out).toEqual([
      {
        table: 'loadBalancer',
        key: 'cluster-tcp-loadbalancer',
        column: 'vips',
        entries: {
          '10.96.0.10:80': '10.16.0.5:8080,10.16.0.6:8080,10.16.0.8:80',
          '[fd00:96::10]:80': '[fd00::5]:8080',
        },
      },
      {
        table: 'loadBalancer',
        key: 'cluster-udp-loadbalancer',
        column: 'vips',
        entries: { '10.96.0.10:53': '10.16.0.5:5353,10.16.0.6:5353', '[fd00:96::10]:53': '[fd00::5]:5353' },
      },
    ]);
  });

  it('ClientIP affinity uses the session load balancers, which select on the client address with a timeout', () => {
    const out = serviceVips(
      { clusterIPs: ['10.96.0.11'], ports: [{ name: 'http', port: 80 }], sessionAffinity: 'ClientIP' },
      slices,
      lbs,
    );
    expect(out.map((c) => c.key)).toEqual(['cluster-tcp-session-loadbalancer']);
    const rows = vpcLoadBalancerRows(lbs);
    expect(rows.find((r) => r.name === 'cluster-tcp-session-loadbalancer')).toMatchObject({
      selectionFields: ['ip_src'],
      options: { affinity_timeout: '10800' },
    });
    expect(rows.find((r) => r.name === 'cluster-udp-loadbalancer')?.options).toEqual({ ct_flush: 'true' });
  });

  it('on the simulator: the VIP reaches a backend through the committed store; without endpoints there is no VIP', async () => {
    const store = new DesiredState();
    const pod = (name: string, ip: string, mac: string) => ({
      name,
      switch: 'ovn-default',
      type: '' as const,
      addresses: [`${mac} ${ip}`],
      portSecurity: [],
      options: {},
      externalIds: {},
    });
    store.set(
      { kind: 'Vpc', name: 'ovn-cluster' },
      {
        rows: vpcLoadBalancerRows(lbs).map((row) => ({ table: 'loadBalancer' as const, row })),
      },
    );
    store.set(
      { kind: 'Subnet', name: 'ovn-default' },
      {
        rows: [
          { table: 'switch', row: { name: 'ovn-default', loadBalancers: [lbs.tcp], otherConfig: {}, externalIds: {} } },
          { table: 'switchPort', row: pod('client.default', '10.16.0.2', '0a:58:0a:10:00:02') },
          { table: 'switchPort', row: pod('web.default', '10.16.0.5', '0a:58:0a:10:00:05') },
        ],
      },
    );
    const web = [{ ports: [{ name: 'http', port: 8080 }], endpoints: [{ addresses: ['10.16.0.5'] }] }];
    store.set(
      { kind: 'Service', namespace: 'default', name: 'web' },
      {
        contributions: serviceVips({ clusterIPs: ['10.96.0.20'], ports: [{ name: 'http', port: 80 }] }, web, lbs),
      },
    );
    store.set(
      { kind: 'Service', namespace: 'default', name: 'idle' },
      {
        contributions: serviceVips({ clusterIPs: ['10.96.0.21'], ports: [{ name: 'http', port: 80 }] }, [], lbs),
      },
    );
    const sim = new SimBackend();
    await sim.apply(plan(await sim.read(), store.topology()));
    expect(Object.keys((await sim.read()).loadBalancer.get(lbs.tcp)?.vips ?? {})).toEqual(['10.96.0.20:80']);
    const to = (dst: string) =>
      sim.probe({
        inport: 'client.default',
        packet: tcpPacket({
          ethSrc: '0a:58:0a:10:00:02',
          ethDst: '0a:58:0a:10:00:05',
          src: '10.16.0.2',
          dst,
          sport: 40001,
          dport: 80,
        }),
      });
    const hit = await to('10.96.0.20');
    expect(hit.verdict).toBe('delivered');
    expect(hit.outputs.map((o) => [o.outport, o.packet['tcp.dst']])).toEqual([['web.default', 8080]]);
  });
});

describe('pod port and annotations', () => {
  const alloc = {
    pod: 'web-0',
    namespace: 'prod',
    subnet: 'ovn-default',
    router: 'ovn-cluster',
    mac: '0a:58:0a:10:00:05',
    ips: ['10.16.0.5', 'fd00:10:16::5'],
    cidrs: ['10.16.0.0/16', 'fd00:10:16::/64'],
    gateways: ['10.16.0.1', 'fd00:10:16::1'],
  };

  it('the port is <pod>.<ns> with one address entry; port security only when asked, VIPs kept in it', () => {
    expect(podPortRow(alloc)).toEqual({
      name: 'web-0.prod',
      switch: 'ovn-default',
      type: '',
      addresses: ['0a:58:0a:10:00:05 10.16.0.5 fd00:10:16::5'],
      portSecurity: [],
      options: {},
      externalIds: { pod: 'prod/web-0', ls: 'ovn-default' },
    });
    expect(podPortRow({ ...alloc, portSecurity: true, vips: ['10.16.0.100'] })).toMatchObject({
      portSecurity: ['0a:58:0a:10:00:05 10.16.0.5 fd00:10:16::5 10.16.0.100'],
      externalIds: { vips: '10.16.0.100', 'attach-vips': 'true' },
    });
    expect(podPortRow({ ...alloc, provider: 'net1.prod' }).name).toBe('web-0.prod.net1.prod');
  });

  it("annotations use the provider's prefix", () => {
    expect(podAnnotations(alloc)).toMatchObject({
      'ovn.kubernetes.io/ip_address': '10.16.0.5,fd00:10:16::5',
      'ovn.kubernetes.io/cidr': '10.16.0.0/16,fd00:10:16::/64',
      'ovn.kubernetes.io/routed': 'true',
      'ovn.kubernetes.io/pod_nic_type': 'veth-pair',
    });
    expect(
      Object.keys(podAnnotations({ ...alloc, provider: 'macvlan.default' })).every((k) =>
        k.startsWith('macvlan.default.kubernetes.io/'),
      ),
    ).toBe(true);
  });
});

describe('nodeRows', () => {
  const node = (name: string, join: string, mac: string, internal: string) =>
    nodeRows({
      name,
      joinSwitch: 'join',
      router: 'ovn-cluster',
      joinMac: mac,
      joinIps: [join],
      internalIps: [internal],
      distributedSubnets: [{ name: 'ovn-default', cidrs: ['10.16.0.0/16'] }],
      networkPolicyExists: false,
    });

  it("join port, the 30000 node policy and the 29000 distributed-gateway policy, Kube-OVN's names", () => {
    const n = node('node-1', '100.64.0.2', '0a:58:64:40:00:02', '192.168.0.1');
    expect(n.port).toMatchObject({ name: 'node-node-1', switch: 'join', addresses: ['0a:58:64:40:00:02 100.64.0.2'] });
    expect(n.policies.map((p) => [p.priority, printMatch(p.match), p.nexthops])).toEqual([
      [30000, 'ip4.dst == 192.168.0.1', ['100.64.0.2']],
      [29000, 'ip4.src == $ovn.default.node.1_ip4', ['100.64.0.2']],
    ]);
    expect(n.portGroups.map((g) => g.name)).toEqual(['node.node.1', 'ovn.default.node.1']);
    expect(n.acls).toEqual([]);
    const withPolicies = nodeRows({
      name: 'node-3',
      joinSwitch: 'join',
      router: 'ovn-cluster',
      joinMac: '0a:58:64:40:00:09',
      joinIps: ['100.64.0.9', 'fd00:100:64::9'],
      internalIps: ['192.168.0.9'],
      distributedSubnets: [],
      networkPolicyExists: true,
    });
    // No IPv6 internal address: the join address stands in.
    expect(withPolicies.acls.map((a) => [a.direction, a.priority, printMatch(a.match)])).toEqual([
      ['to-lport', 3000, 'ip4.src == 192.168.0.9 && ip4.dst == $node.node.3_ip4'],
      ['from-lport', 3000, 'ip4.dst == 192.168.0.9 && ip4.src == $node.node.3_ip4'],
      ['to-lport', 3000, 'ip6.src == fd00:100:64::9 && ip6.dst == $node.node.3_ip6'],
      ['from-lport', 3000, 'ip6.dst == fd00:100:64::9 && ip6.src == $node.node.3_ip6'],
    ]);
  });

  it('on the simulator: outbound traffic leaves through the node of the pod, node addresses through their node', async () => {
    const store = new DesiredState();
    // Kube-OVN's default route of the cluster router: via the join subnet's gateway.
    const vpc = vpcRows({ name: 'ovn-cluster', staticRoutes: [{ cidr: '0.0.0.0/0', nextHopIP: '100.64.0.1' }] }).value;
    const sub = (name: string, cidr: string, mac: string) =>
      subnetRows({ ...base, gatewayMac: mac, config: config({ name, cidrBlock: cidr }) }).value;
    const def = sub('ovn-default', '10.16.0.0/16', '0a:58:0a:10:00:01');
    const join = sub('join', '100.64.0.0/16', '0a:58:64:40:00:01');
    store.set(
      { kind: 'Vpc', name: 'ovn-cluster' },
      {
        rows: [
          { table: 'router', row: vpc.router },
          ...vpc.staticRoutes.map((row) => ({ table: 'staticRoute' as const, row })),
        ],
      },
    );
    for (const s of [def, join]) {
      store.set(
        { kind: 'Subnet', name: s.switch.name },
        {
          rows: [
            { table: 'switch', row: s.switch },
            { table: 'routerPort', row: s.routerPort },
            { table: 'switchPort', row: s.switchPort },
          ],
        },
      );
    }
    const nodes = [
      node('node-1', '100.64.0.2', '0a:58:64:40:00:02', '192.168.0.1'),
      node('node-2', '100.64.0.3', '0a:58:64:40:00:03', '192.168.0.2'),
    ];
    for (const [i, n] of nodes.entries()) {
      store.set(
        { kind: 'Node', name: `node-${i + 1}` },
        {
          rows: [
            { table: 'switchPort', row: n.port },
            ...n.policies.map((row) => ({ table: 'routerPolicy' as const, row })),
            ...n.portGroups.map((row) => ({ table: 'portGroup' as const, row })),
          ],
        },
      );
    }
    const pods = [
      ['a', 'node-1', '10.16.0.5', '0a:58:0a:10:00:05'],
      ['b', 'node-2', '10.16.0.6', '0a:58:0a:10:00:06'],
    ] as const;
    for (const [pod, nodeName, ip, mac] of pods) {
      const port = podPortRow({ ...alloc(pod, ip, mac) });
      store.set(
        { kind: 'Pod', namespace: 'default', name: pod },
        {
          rows: [{ table: 'switchPort', row: port }],
          contributions: podNodeMemberships(port.name, nodeName, 'ovn-default', true),
        },
      );
    }
    const sim = new SimBackend();
    await sim.apply(plan(await sim.read(), store.topology()));
    const out = async (pod: string, ip: string, mac: string, dst: string) => {
      const r = await sim.probe({
        inport: `${pod}.default`,
        packet: tcpPacket({ ethSrc: mac, ethDst: '0a:58:0a:10:00:01', src: ip, dst, sport: 40000, dport: 443 }),
      });
      return r.outputs.map((o) => o.outport);
    };
    expect(await out('a', '10.16.0.5', '0a:58:0a:10:00:05', '1.1.1.1')).toEqual(['node-node-1']);
    expect(await out('b', '10.16.0.6', '0a:58:0a:10:00:06', '1.1.1.1')).toEqual(['node-node-2']);
    expect(await out('a', '10.16.0.5', '0a:58:0a:10:00:05', '192.168.0.2')).toEqual(['node-node-2']);
  });
});

function alloc(pod: string, ip: string, mac: string) {
  return {
    pod,
    namespace: 'default',
    subnet: 'ovn-default',
    router: 'ovn-cluster',
    mac,
    ips: [ip],
    cidrs: ['10.16.0.0/16'],
    gateways: ['10.16.0.1'],
  };
}
