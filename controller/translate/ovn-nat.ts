/**
 * OVN-native NAT of a VPC's router from OvnFip, OvnSnatRule and OvnDnatRule,
 * as Kube-OVN writes them (pkg/controller/ovn_fip.go handleAddOvnFip,
 * ovn_snat.go handleAddOvnSnatRule, ovn_dnat.go AddDnatRule; pkg/ovs/
 * ovn-nb-nat.go AddNat):
 *
 * - a FIP is a `dnat_and_snat` row per family pair (v4:v4, v6:v6, and
 *   v4:v6 / v6:v4 when each side has one family only), with
 *   `logical_port` = the IP object's name and `external_mac` = its MAC when
 *   the FIP names an IP object, and `options:stateless` = whether the FIP is
 *   `distributed`;
 * - an SNAT rule is a `snat` row per family (a subnet's CIDR or one address);
 * - a DNAT rule is no NAT row: a load balancer named after the rule, with the
 *   VIP `eip:externalPort` → `internal:internalPort`, attached to the router
 *   (UDP ones get `options:ct_flush`).
 *
 * Inputs are resolved by the handlers (the EIP's addresses, the IP object's);
 * what does not parse is an issue and nothing is written for the rule.
 */
import { tryParseCIDR, tryParseIP } from '../../model/addr/index.ts';
import type { LbProtocol, LoadBalancer, NAT } from '../../model/topology/index.ts';
import type { TranslateIssue, Translation } from './issues.ts';

/** One address per family ('' when the family is absent). */
export interface Families {
  readonly v4: string;
  readonly v6: string;
}

/** The pairs (external, internal) Kube-OVN writes for a FIP or a DNAT rule. */
export function familyPairs(eip: Families, internal: Families, crossFamily: boolean): [string, string][] {
  const out: [string, string][] = [];
  if (eip.v4 && internal.v4) out.push([eip.v4, internal.v4]);
  if (eip.v6 && internal.v6) out.push([eip.v6, internal.v6]);
  if (!crossFamily) return out;
  if (internal.v4 && !internal.v6 && !eip.v4 && eip.v6) out.push([eip.v6, internal.v4]);
  if (internal.v6 && !internal.v4 && !eip.v6 && eip.v4) out.push([eip.v4, internal.v6]);
  return out;
}

/** Checks the addresses a rule uses, naming the field each came from. */
function checkAddresses(
  object: string,
  fields: readonly { field: string; value: string; cidr?: boolean }[],
): TranslateIssue[] {
  return fields
    .filter((f) => f.value !== '')
    .filter((f) => tryParseIP(f.value) === undefined && !(f.cidr && tryParseCIDR(f.value) !== undefined))
    .map((f) => ({
      code: 'invalid-address' as const,
      object,
      field: f.field,
      message: `${JSON.stringify(f.value)} is not an IP address${f.cidr ? ' or CIDR' : ''}`,
    }));
}

export interface FipInput {
  readonly name: string;
  readonly router: string;
  readonly eip: Families;
  readonly internal: Families;
  /** The IP object's name (`logical_port`) and MAC (`external_mac`), when the FIP names one. */
  readonly logicalPort?: string;
  readonly mac?: string;
  readonly stateless: boolean;
}

/**
 * @example
 * fipNats({ name: 'f1', router: 'vpc1', eip: { v4: '172.18.0.10', v6: '' }, internal: { v4: '10.0.1.2', v6: '' }, stateless: false })
 *   .value[0].type // 'dnat_and_snat'
 */
export function fipNats(input: FipInput): Translation<NAT[]> {
  const object = `OvnFip/${input.name}`;
  const issues = checkAddresses(object, [
    { field: 'spec.v4Ip', value: input.internal.v4 },
    { field: 'spec.v6Ip', value: input.internal.v6 },
  ]);
  if (issues.length > 0) return { value: [], issues };
  const nats = familyPairs(input.eip, input.internal, true).map(
    ([externalIp, logicalIp]): NAT => ({
      router: input.router,
      type: 'dnat_and_snat',
      externalIp,
      logicalIp,
      ...(input.logicalPort ? { logicalPort: input.logicalPort } : {}),
      ...(input.mac ? { externalMac: input.mac } : {}),
      options: { stateless: String(input.stateless) },
      externalIds: { 'ovn-fip': input.name },
    }),
  );
  return { value: nats, issues: [] };
}

export interface SnatInput {
  readonly name: string;
  readonly router: string;
  readonly eip: Families;
  /** A subnet's CIDRs or one address per family. */
  readonly internal: Families;
}

/**
 * @example
 * snatNats({ name: 's1', router: 'vpc1', eip: { v4: '172.18.0.10', v6: '' }, internal: { v4: '10.0.1.0/24', v6: '' } })
 *   .value[0].logicalIp // '10.0.1.0/24'
 */
export function snatNats(input: SnatInput): Translation<NAT[]> {
  const object = `OvnSnatRule/${input.name}`;
  const issues = checkAddresses(object, [
    { field: 'spec.v4IpCidr', value: input.internal.v4, cidr: true },
    { field: 'spec.v6IpCidr', value: input.internal.v6, cidr: true },
  ]);
  if (issues.length > 0) return { value: [], issues };
  const nats = familyPairs(input.eip, input.internal, false).map(
    ([externalIp, logicalIp]): NAT => ({
      router: input.router,
      type: 'snat',
      externalIp,
      logicalIp,
      options: {},
      externalIds: { 'ovn-snat': input.name },
    }),
  );
  return { value: nats, issues: [] };
}

export interface DnatInput {
  readonly name: string;
  readonly eip: Families;
  readonly internal: Families;
  readonly externalPort: string;
  readonly internalPort: string;
  readonly protocol: string;
}

const PROTOCOLS: readonly string[] = ['tcp', 'udp', 'sctp'];

/** A port as Kube-OVN's strings hold it: a decimal 1..65535. */
const isPort = (s: string): boolean => /^[0-9]{1,5}$/.test(s) && Number(s) >= 1 && Number(s) <= 65535;

/** `ip:port`, IPv6 in brackets (Go's net.JoinHostPort). */
const hostPort = (ip: string, port: string): string => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

/**
 * @example
 * dnatLoadBalancer({ name: 'd1', eip: { v4: '172.18.0.10', v6: '' }, internal: { v4: '10.0.1.2', v6: '' }, externalPort: '80', internalPort: '8080', protocol: 'tcp' })
 *   .value?.vips // { '172.18.0.10:80': '10.0.1.2:8080' }
 */
export function dnatLoadBalancer(input: DnatInput): Translation<LoadBalancer | undefined> {
  const object = `OvnDnatRule/${input.name}`;
  const issues: TranslateIssue[] = checkAddresses(object, [
    { field: 'spec.v4Ip', value: input.internal.v4 },
    { field: 'spec.v6Ip', value: input.internal.v6 },
  ]);
  for (const [field, v] of [
    ['spec.externalPort', input.externalPort],
    ['spec.internalPort', input.internalPort],
  ] as const) {
    if (!isPort(v))
      issues.push({ code: 'invalid-value', object, field, message: `${JSON.stringify(v)} is not a port 1..65535` });
  }
  // OVN's Load_Balancer.protocol takes tcp, udp or sctp only; Kube-OVN passes the field as it is.
  if (!PROTOCOLS.includes(input.protocol))
    issues.push({
      code: 'invalid-value',
      object,
      field: 'spec.protocol',
      message: `${JSON.stringify(input.protocol)} is not tcp, udp or sctp`,
    });
  if (issues.length > 0) return { value: undefined, issues };
  const vips: Record<string, string> = {};
  for (const [e, i] of familyPairs(input.eip, input.internal, false))
    vips[hostPort(e, input.externalPort)] = hostPort(i, input.internalPort);
  return {
    value: {
      name: input.name,
      vips,
      protocol: input.protocol as LbProtocol,
      selectionFields: [],
      options: input.protocol === 'udp' ? { ct_flush: 'true' } : {},
      externalIds: { 'ovn-dnat': input.name },
    },
    issues: [],
  };
}
