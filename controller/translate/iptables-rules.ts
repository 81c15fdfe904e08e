/**
 * The checks Kube-OVN's iptables handlers and nat-gateway.sh make before a
 * rule goes into the gateway pod (pkg/controller/vpc_nat_gw_eip.go,
 * vpc_nat_gw_nat.go; dist/images/vpcnatgateway/nat-gateway.sh): an EIP needs
 * its address and gateway; a rule needs its EIP ready and well-formed
 * addresses and ports; a FIP's EIP is bound to one internal address, and a
 * DNAT's (EIP, protocol, external port) to one backend: the later object is
 * refused as the script's `exit 1` refuses it. Pure: what the handler read
 * in, issues out.
 */
import { tryParseCIDR, tryParseIPv4 } from '../../model/addr/index.ts';
import type { IptablesEIPView, IptablesRuleView } from '../../kube/objects/vpc-nat-gateway.ts';
import type { TranslateIssue } from './issues.ts';

const bad = (object: string, field: string, message: string): TranslateIssue => ({
  code: 'invalid-value',
  object,
  field,
  message,
});

/**
 * @example eipIssues(eip, { gatewayExists: true }) // []
 */
export function eipIssues(e: IptablesEIPView, c: { readonly gatewayExists: boolean }): TranslateIssue[] {
  const object = `IptablesEIP/${e.name}`;
  const out: TranslateIssue[] = [];
  if (tryParseIPv4(e.v4ip) === undefined)
    out.push(
      bad(
        object,
        'spec.v4ip',
        e.v4ip === ''
          ? `no v4ip: kovn does not model the external network ${e.externalSubnet} to allocate from`
          : `${JSON.stringify(e.v4ip)} is not an IPv4 address`,
      ),
    );
  if (e.natGwDp === '') out.push(bad(object, 'spec.natGwDp', 'spec.natGwDp is required'));
  else if (!c.gatewayExists) out.push(bad(object, 'spec.natGwDp', `VpcNatGateway ${e.natGwDp} does not exist`));
  return out;
}

const port = (v: string) => /^[0-9]+$/.test(v) && Number(v) >= 1 && Number(v) <= 65535;

/**
 * The rule's own problems and its clash with an older rule on the same EIP
 * (`older`: the rules of its kind created before it, with the EIP address
 * each resolved to).
 *
 * @example ruleIssues(fip, { eip: '172.18.0.10' }, []) // []
 */
export function ruleIssues(
  r: IptablesRuleView,
  eip: { readonly ip: string } | undefined,
  older: readonly { readonly rule: IptablesRuleView; readonly ip: string }[],
): TranslateIssue[] {
  const object = `${r.kind}/${r.name}`;
  const out: TranslateIssue[] = [];
  if (eip === undefined)
    out.push(bad(object, 'spec.eip', `IptablesEIP ${JSON.stringify(r.eip)} does not exist or is not ready`));
  if (r.kind === 'IptablesSnatRule') {
    if (tryParseCIDR(r.internalCIDR, { allowBare: true })?.family !== 4)
      out.push(bad(object, 'spec.internalCIDR', `${JSON.stringify(r.internalCIDR)} is not an IPv4 CIDR`));
    return out;
  }
  if (tryParseIPv4(r.internalIp) === undefined)
    out.push(bad(object, 'spec.internalIp', `${JSON.stringify(r.internalIp)} is not an IPv4 address`));
  if (r.kind === 'IptablesDnatRule') {
    if (!port(r.externalPort))
      out.push(bad(object, 'spec.externalPort', `${JSON.stringify(r.externalPort)} is not a port`));
    if (!port(r.internalPort))
      out.push(bad(object, 'spec.internalPort', `${JSON.stringify(r.internalPort)} is not a port`));
    if (r.protocol !== 'tcp' && r.protocol !== 'udp')
      out.push(bad(object, 'spec.protocol', `${JSON.stringify(r.protocol)} is not tcp or udp`));
  }
  if (eip === undefined) return out;
  const clash = older.find(
    (o) =>
      o.ip === eip.ip &&
      o.rule.kind === r.kind &&
      (r.kind === 'IptablesFIPRule'
        ? o.rule.kind === 'IptablesFIPRule' && o.rule.internalIp !== r.internalIp
        : r.kind === 'IptablesDnatRule' &&
          o.rule.kind === 'IptablesDnatRule' &&
          o.rule.protocol === r.protocol &&
          o.rule.externalPort === r.externalPort),
  );
  if (clash !== undefined)
    out.push(bad(object, 'spec.eip', `${eip.ip} is already bound by ${clash.rule.kind} ${clash.rule.name}`));
  return out;
}
