/**
 * A pod's bandwidth limits as Kube-OVN's CNI applies them (pkg/ovs
 * ovs-vsctl_linux.go SetInterfaceBandwidth, called by pkg/daemon
 * configureNic with the annotations swapped): the annotations speak from
 * the pod's side, OVS from the port's.
 *
 * - `egress_rate` (Mbit/s, what the pod sends) enters OVS through the
 *   pod's interface: the Interface's `ingress_policing_rate` in kbit/s
 *   (rate × 1000) and `ingress_policing_burst` in kbit (`egress_burst` Mbit ×
 *   1000, default 80 % of the rate).
 * - `ingress_rate` (Mbit/s, what the pod receives) leaves OVS through it: a
 *   `linux-htb` QoS on the Port with queue 0, the Queue's
 *   `other_config:max-rate` in bit/s (rate × 10^6) and `other_config:burst`
 *   in bytes (`ingress_burst` Mbit × 125000, default rate/10 bytes, i.e. 80 %
 *   of a second's worth); both rows carry `external_ids:iface-id` and
 *   `pod=<namespace>/<name>`.
 *
 * Kube-OVN writes linux-htb on every datapath; ovs-vswitchd applies it with
 * tc on the kernel device, which on the netdev datapath is the veth's host
 * end it sends to through AF_PACKET.
 */
import type { Operation, vswitch } from '../../backends/ovn/ovsdb/index.ts';
import type { Vswitch } from '../ovs/index.ts';

/** The largest rate in Mbit/s whose bit/s value is still an exact number. */
const MAX_MBPS = Math.floor(Number.MAX_SAFE_INTEGER / 1_000_000);

export const HTB_QOS = 'linux-htb';

/** What a pod's port gets; zero policing rate and no htb: unlimited. */
export interface Bandwidth {
  readonly policingRateKbit: number;
  readonly policingBurstKbit: number;
  readonly htb?: { readonly maxRateBps: number; readonly burstBytes: number };
}

export type BandwidthDecoded =
  | { readonly ok: true; readonly value: Bandwidth }
  | { readonly ok: false; readonly issue: { readonly path: string; readonly message: string } };

type Annotations = Readonly<Record<string, string | undefined>>;

/**
 * @example
 * bandwidthOf({ 'ovn.kubernetes.io/egress_rate': '10', 'ovn.kubernetes.io/ingress_rate': '20' })
 * // { ok: true, value: { policingRateKbit: 10000, policingBurstKbit: 8000, htb: { maxRateBps: 20000000, burstBytes: 2000000 } } }
 */
export function bandwidthOf(a: Annotations, provider = 'ovn'): BandwidthDecoded {
  const key = (k: string) => `${provider}.kubernetes.io/${k}`;
  const egress = rate(a, key('egress_rate'));
  if (!egress.ok) return egress;
  const ingress = rate(a, key('ingress_rate'));
  if (!ingress.ok) return ingress;
  const policingRateKbit = egress.mbps * 1000;
  const egressBurst = burstMbit(a[key('egress_burst')]);
  const policingBurstKbit =
    policingRateKbit <= 0
      ? 0
      : egressBurst === undefined
        ? Math.floor(policingRateKbit / 10) * 8 + Math.floor(((policingRateKbit % 10) * 8) / 10)
        : egressBurst * 1000;
  if (ingress.mbps <= 0) return { ok: true, value: { policingRateKbit, policingBurstKbit } };
  const maxRateBps = ingress.mbps * 1_000_000;
  const ingressBurst = burstMbit(a[key('ingress_burst')]);
  const burstBytes = ingressBurst === undefined ? Math.floor(maxRateBps / 10) : ingressBurst * 125_000;
  return { ok: true, value: { policingRateKbit, policingBurstKbit, htb: { maxRateBps, burstBytes } } };
}

function rate(
  a: Annotations,
  key: string,
): { ok: true; mbps: number } | { ok: false; issue: { path: string; message: string } } {
  const v = a[key];
  if (v === undefined || v === '') return { ok: true, mbps: 0 };
  const n = /^\+?\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n) || n > MAX_MBPS)
    return {
      ok: false,
      issue: {
        path: `metadata.annotations[${key}]`,
        message: `${key}: ${JSON.stringify(v)} is not a whole number of Mbit/s up to ${MAX_MBPS}`,
      },
    };
  return { ok: true, mbps: n };
}

/** A burst that does not parse falls back to the default, as Kube-OVN does (a typo must not remove the burst). */
function burstMbit(v: string | undefined): number | undefined {
  if (v === undefined || v === '' || !/^\+?\d+$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n * 1_000_000) ? n : undefined;
}

export interface QosTarget {
  /** The OVS port and interface name (the veth's host end). */
  readonly port: string;
  readonly ifaceId: string;
  /** `<namespace>/<name>`. */
  readonly pod: string;
}

/** The QoS row on the port, and its queue 0. */
export function portQos(vs: Vswitch, portName: string): { qos?: vswitch.QoS; queue?: vswitch.Queue } {
  const port = vs.cache.lookup('Port', 'name', portName)[0];
  const qos = port?.qos === undefined ? undefined : vs.cache.get('QoS', port.qos);
  const q0 = qos?.queues['0'];
  const queue = q0 === undefined ? undefined : vs.cache.get('Queue', q0);
  return { ...(qos === undefined ? {} : { qos }), ...(queue === undefined ? {} : { queue }) };
}

/**
 * Operations making the port's limits `bw`: the interface's policing
 * columns, and the htb QoS and queue created, changed or removed. The port
 * may be inserted earlier in the same transaction (it is found by name).
 */
export function bandwidthOps(vs: Vswitch, t: QosTarget, bw: Bandwidth): Operation[] {
  const b = vs.ops;
  const ops: Operation[] = [
    b.update('Interface', [['name', '==', t.port]], {
      ingress_policing_rate: bw.policingRateKbit,
      ingress_policing_burst: bw.policingBurstKbit,
    }),
  ];
  const { qos, queue } = portQos(vs, t.port);
  const ids = { 'iface-id': t.ifaceId, pod: t.pod };
  if (bw.htb !== undefined) {
    const config = { 'max-rate': String(bw.htb.maxRateBps), burst: String(bw.htb.burstBytes) };
    if (qos !== undefined && qos.type === HTB_QOS && queue !== undefined) {
      const where = [b.whereUuid(queue._uuid)];
      ops.push(b.mutate('Queue', where, [['other_config', 'delete', Object.keys(config)]]));
      ops.push(b.mutate('Queue', where, [['other_config', 'insert', config]]));
      return ops;
    }
    const [q, s] = [vs.uuidName('queue'), vs.uuidName('qos')];
    ops.push(b.insert('Queue', { other_config: config, external_ids: ids }, { uuidName: q }));
    ops.push(b.insert('QoS', { type: HTB_QOS, queues: { 0: q }, external_ids: ids }, { uuidName: s }));
    ops.push(b.update('Port', [['name', '==', t.port]], { qos: s }));
    if (qos !== undefined) ops.push(...deleteQosOps(vs, qos));
    return ops;
  }
  // Kube-OVN removes max-rate and burst and then the rows once the queue's other_config is empty; kovn writes
  // no other key, so the rows go at once.
  if (qos === undefined || qos.type !== HTB_QOS) return ops;
  ops.push(b.update('Port', [['name', '==', t.port]], { qos: undefined }));
  ops.push(...deleteQosOps(vs, qos));
  return ops;
}

/** Deletes a QoS row and its queues (root rows: nothing removes them when their port goes). */
export function deleteQosOps(vs: Vswitch, qos: vswitch.QoS): Operation[] {
  const b = vs.ops;
  return [
    b.delete('QoS', [b.whereUuid(qos._uuid)]),
    ...Object.values(qos.queues).map((u) => b.delete('Queue', [b.whereUuid(u)])),
  ];
}

/** Whether the port's rows already say `bw` (nothing to write). */
export function bandwidthMatches(vs: Vswitch, port: string, bw: Bandwidth): boolean {
  const iface = vs.cache.lookup('Interface', 'name', port)[0];
  if (iface === undefined) return true;
  if (iface.ingress_policing_rate !== bw.policingRateKbit || iface.ingress_policing_burst !== bw.policingBurstKbit)
    return false;
  const { qos, queue } = portQos(vs, port);
  if (bw.htb === undefined) return qos === undefined || qos.type !== HTB_QOS;
  return (
    qos?.type === HTB_QOS &&
    queue?.other_config['max-rate'] === String(bw.htb.maxRateBps) &&
    queue.other_config.burst === String(bw.htb.burstBytes)
  );
}
