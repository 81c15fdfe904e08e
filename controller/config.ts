/**
 * The controller's start-up settings, named and defaulted as
 * kube-ovn-controller's command-line flags are (pkg/controller/config.go),
 * so a Kube-OVN operator's flags mean the same here. A Scenario's
 * `spec.cluster` maps onto the same settings (`settingsFromScenario`).
 */
import type { VpcLoadBalancers } from './translate/names.ts';

export interface ControllerSettings {
  /** `--default-ls`: the default subnet's name. */
  readonly defaultLogicalSwitch: string;
  /** `--default-cidr`: the default subnet's CIDR ("v4", "v6" or "v4,v6"). */
  readonly defaultCIDR: string;
  /** `--default-gateway`: empty means the first address of each CIDR. */
  readonly defaultGateway: string;
  /** `--default-exclude-ips`: empty means only the gateway. */
  readonly defaultExcludeIps: string;
  /** `--cluster-router`: the default VPC and its router. */
  readonly clusterRouter: string;
  /** `--node-switch`: the join subnet's name. */
  readonly nodeSwitch: string;
  /** `--node-switch-cidr`. */
  readonly nodeSwitchCIDR: string;
  /** `--node-switch-gateway`: empty means the first address. */
  readonly nodeSwitchGateway: string;
  /** `--service-cluster-ip-range` ("v4" or "v4,v6"). */
  readonly serviceClusterIPRange: string;
  /** `--cluster-tcp-loadbalancer` and its siblings. */
  readonly clusterTcpLoadBalancer: string;
  readonly clusterUdpLoadBalancer: string;
  readonly clusterSctpLoadBalancer: string;
  readonly clusterTcpSessionLoadBalancer: string;
  readonly clusterUdpSessionLoadBalancer: string;
  readonly clusterSctpSessionLoadBalancer: string;
  /** `--enable-lb`: Services become OVN load balancers. */
  readonly enableLb: boolean;
  /** `--enable-np`: NetworkPolicies become ACLs. */
  readonly enableNP: boolean;
  /** `--pod-nic-type`: written to the `pod_nic_type` annotation. */
  readonly podNicType: string;
  /** `--network-type` (geneve). */
  readonly networkType: string;
  /** `--worker-num`: concurrent reconciles per resource. */
  readonly workerNum: number;
  /** `--node-local-dns-ip`: comma-separated; empty when unused. */
  readonly nodeLocalDnsIP: string;
  /**
   * `--external-gateway-switch`: the default external subnet of a Vpc with
   * `enableExternal` and of an OvnEip without `externalSubnet`.
   */
  readonly externalGatewaySwitch: string;
}

export const DEFAULT_SETTINGS: ControllerSettings = Object.freeze({
  defaultLogicalSwitch: 'ovn-default',
  defaultCIDR: '10.16.0.0/16',
  defaultGateway: '',
  defaultExcludeIps: '',
  clusterRouter: 'ovn-cluster',
  nodeSwitch: 'join',
  nodeSwitchCIDR: '100.64.0.0/16',
  nodeSwitchGateway: '',
  serviceClusterIPRange: '10.96.0.0/12',
  clusterTcpLoadBalancer: 'cluster-tcp-loadbalancer',
  clusterUdpLoadBalancer: 'cluster-udp-loadbalancer',
  clusterSctpLoadBalancer: 'cluster-sctp-loadbalancer',
  clusterTcpSessionLoadBalancer: 'cluster-tcp-session-loadbalancer',
  clusterUdpSessionLoadBalancer: 'cluster-udp-session-loadbalancer',
  clusterSctpSessionLoadBalancer: 'cluster-sctp-session-loadbalancer',
  enableLb: true,
  enableNP: true,
  podNicType: 'veth-pair',
  networkType: 'geneve',
  workerNum: 3,
  nodeLocalDnsIP: '',
  externalGatewaySwitch: 'external',
});

/** Kube-OVN's flag name for each setting (`--default-cidr` → `defaultCIDR`). */
export const SETTING_FLAGS: Readonly<Record<keyof ControllerSettings, string>> = Object.freeze({
  defaultLogicalSwitch: 'default-ls',
  defaultCIDR: 'default-cidr',
  defaultGateway: 'default-gateway',
  defaultExcludeIps: 'default-exclude-ips',
  clusterRouter: 'cluster-router',
  nodeSwitch: 'node-switch',
  nodeSwitchCIDR: 'node-switch-cidr',
  nodeSwitchGateway: 'node-switch-gateway',
  serviceClusterIPRange: 'service-cluster-ip-range',
  clusterTcpLoadBalancer: 'cluster-tcp-loadbalancer',
  clusterUdpLoadBalancer: 'cluster-udp-loadbalancer',
  clusterSctpLoadBalancer: 'cluster-sctp-loadbalancer',
  clusterTcpSessionLoadBalancer: 'cluster-tcp-session-loadbalancer',
  clusterUdpSessionLoadBalancer: 'cluster-udp-session-loadbalancer',
  clusterSctpSessionLoadBalancer: 'cluster-sctp-session-loadbalancer',
  enableLb: 'enable-lb',
  enableNP: 'enable-np',
  podNicType: 'pod-nic-type',
  networkType: 'network-type',
  workerNum: 'worker-num',
  nodeLocalDnsIP: 'node-local-dns-ip',
  externalGatewaySwitch: 'external-gateway-switch',
});

/** A Scenario's `spec.cluster` (all optional). */
export interface ScenarioClusterSpec {
  readonly defaultSubnet?: string;
  readonly joinSubnet?: string;
  readonly serviceCIDR?: string;
  readonly nodes?: number;
}

/**
 * @example settingsFromScenario({ defaultSubnet: '10.16.0.0/16,fd00:10:16::/64' }).defaultCIDR
 * // '10.16.0.0/16,fd00:10:16::/64'
 */
export function settingsFromScenario(
  spec: ScenarioClusterSpec | undefined,
  base: ControllerSettings = DEFAULT_SETTINGS,
): ControllerSettings {
  return {
    ...base,
    ...(spec?.defaultSubnet !== undefined ? { defaultCIDR: spec.defaultSubnet } : {}),
    ...(spec?.joinSubnet !== undefined ? { nodeSwitchCIDR: spec.joinSubnet } : {}),
    ...(spec?.serviceCIDR !== undefined ? { serviceClusterIPRange: spec.serviceCIDR } : {}),
  };
}

export type SettingIssue = {
  readonly code: 'unknown-flag' | 'invalid-value';
  readonly flag: string;
  readonly message: string;
};

/**
 * Settings from `--flag=value` pairs (already split), over `base`. Unknown
 * flags and bad values are reported, never ignored.
 *
 * @example settingsFromFlags({ 'default-cidr': '10.20.0.0/16' }).settings.defaultCIDR // '10.20.0.0/16'
 */
export function settingsFromFlags(
  flags: Readonly<Record<string, string>>,
  base: ControllerSettings = DEFAULT_SETTINGS,
): { settings: ControllerSettings; issues: SettingIssue[] } {
  const byFlag = new Map(Object.entries(SETTING_FLAGS).map(([k, f]) => [f, k as keyof ControllerSettings]));
  const out: Record<string, unknown> = { ...base };
  const issues: SettingIssue[] = [];
  for (const [flag, value] of Object.entries(flags)) {
    const key = byFlag.get(flag);
    if (key === undefined) {
      issues.push({ code: 'unknown-flag', flag, message: `unknown flag --${flag}` });
      continue;
    }
    const kind = typeof DEFAULT_SETTINGS[key];
    if (kind === 'boolean') {
      if (value !== 'true' && value !== 'false') {
        issues.push({
          code: 'invalid-value',
          flag,
          message: `--${flag}: expected true or false, got ${JSON.stringify(value)}`,
        });
      } else out[key] = value === 'true';
    } else if (kind === 'number') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) {
        issues.push({
          code: 'invalid-value',
          flag,
          message: `--${flag}: expected a positive integer, got ${JSON.stringify(value)}`,
        });
      } else out[key] = n;
    } else out[key] = value;
  }
  return { settings: out as unknown as ControllerSettings, issues };
}

/**
 * The cluster router's load balancer names, from the settings.
 *
 * @example clusterLoadBalancers(DEFAULT_SETTINGS).tcp // 'cluster-tcp-loadbalancer'
 */
export function clusterLoadBalancers(s: ControllerSettings): VpcLoadBalancers {
  return {
    tcp: s.clusterTcpLoadBalancer,
    udp: s.clusterUdpLoadBalancer,
    sctp: s.clusterSctpLoadBalancer,
    tcpSession: s.clusterTcpSessionLoadBalancer,
    udpSession: s.clusterUdpSessionLoadBalancer,
    sctpSession: s.clusterSctpSessionLoadBalancer,
  };
}
