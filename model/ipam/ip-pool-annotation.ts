/**
 * Kube-OVN's `ovn.kubernetes.io/ip_pool` pod annotation and StatefulSet
 * ordinals. The annotation is either one IPPool's name or a list of
 * addresses ("a;b;c", or "a,b,c"; a "v4,v6" pair is one dual-stack entry).
 */
import { familyOf, tryParseIP } from '../addr/index.ts';

export type IpPoolAnnotation =
  | { readonly kind: 'pool'; readonly name: string }
  | { readonly kind: 'ips'; readonly entries: readonly string[] };

/**
 * Splits the annotation as Kube-OVN does: ';' separates entries when present;
 * otherwise ',' does, except that exactly two addresses of different
 * families are a single dual-stack entry.
 *
 * @example parseIpPoolAnnotation('10.16.0.10;10.16.0.11') // { kind: 'ips', entries: ['10.16.0.10', '10.16.0.11'] }
 * @example parseIpPoolAnnotation('10.16.0.10,fd00::a')     // { kind: 'ips', entries: ['10.16.0.10,fd00::a'] }
 * @example parseIpPoolAnnotation('pool-a')                 // { kind: 'pool', name: 'pool-a' }
 */
export function parseIpPoolAnnotation(text: string): IpPoolAnnotation {
  let entries: string[];
  if (text.includes(';')) {
    entries = text.split(';');
  } else {
    entries = text.split(',');
    if (entries.length === 2 && familyOf(entries[0]!.trim()) !== familyOf(entries[1]!.trim())) entries = [text];
  }
  entries = entries.map((e) =>
    e
      .split(',')
      .map((p) => p.trim())
      .join(','),
  );
  const only = entries[0]!;
  if (entries.length === 1 && !only.includes(',') && tryParseIP(only) === undefined)
    return { kind: 'pool', name: only };
  return { kind: 'ips', entries };
}

/**
 * The ordinal of a StatefulSet pod, from its name's last "-N" part.
 *
 * @example statefulSetOrdinal('web-2') // 2
 */
export function statefulSetOrdinal(podName: string): number | undefined {
  const m = /-(0|[1-9][0-9]*)$/.exec(podName);
  return m ? Number(m[1]) : undefined;
}

/**
 * The owner key of a pod's interface, as Kube-OVN names its logical switch
 * port: `<pod>.<namespace>`, plus `.<provider>` for a non-default provider.
 *
 * @example ownerKey('web-0', 'default') // 'web-0.default'
 * @example ownerKey('web-0', 'default', 'net1.default.ovn') // 'web-0.default.net1.default.ovn'
 */
export function ownerKey(pod: string, namespace: string, provider?: string): string {
  return provider === undefined || provider === '' || provider === 'ovn'
    ? `${pod}.${namespace}`
    : `${pod}.${namespace}.${provider}`;
}
