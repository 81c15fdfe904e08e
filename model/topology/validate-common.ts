/**
 * Shared pieces of the topology validators: the issue sink, labels that name
 * the object and field, integer range checks, and the address forms OVN
 * accepts in NB columns (read from ovn-northd 23.03 and lib/ovn-util.c).
 */
import { type CIDR, type IP, maxPrefix, tryParseCIDR, tryParseIP } from '../addr/index.ts';
import type { Issue } from '../issues.ts';
import type { TableName } from './types.ts';

export type Path = readonly (string | number)[];

/** Collects issues; validators call it for every problem, never stopping early. */
export class IssueSink {
  readonly issues: Issue[] = [];
  add(code: string, path: Path, message: string): void {
    this.issues.push({ code, path, message });
  }
}

/** `switchPort "web-0.default": addresses[0]`, `loadBalancer "lb0": vips["10.96.0.1:80"]`, `qos "…": action.dscp` */
export function label(table: TableName, key: string, field: Path): string {
  let text = '';
  field.forEach((f, i) => {
    if (typeof f === 'number') text += `[${f}]`;
    else if (i === 0) text += f;
    else text += /^[A-Za-z_][A-Za-z0-9_]*$/.test(f) ? `.${f}` : `[${JSON.stringify(f)}]`;
  });
  return `${table} ${JSON.stringify(key)}: ${text}`;
}

/**
 * Reports problems of one row: the issue path is `[table, key, ...field]`
 * and the message starts with the {@link label} of the field.
 */
export type RowReport = (code: string, field: Path, problem: string) => void;

export function rowReport(sink: IssueSink, table: TableName, key: string): RowReport {
  return (code, field, problem) => sink.add(code, [table, key, ...field], `${label(table, key, field)} ${problem}`);
}

export interface IntRange {
  readonly code: string;
  readonly min: number;
  readonly max: number;
}

/** Reports unless `value` is undefined or an integer in [min, max]. */
export function checkIntRange(report: RowReport, field: Path, value: number | undefined, r: IntRange): void {
  if (value === undefined) return;
  if (Number.isInteger(value) && value >= r.min && value <= r.max) return;
  report(r.code, field, `is ${value}; it must be an integer in ${r.min}..${r.max}`);
}

export const PRIORITY: IntRange = { code: 'bad-priority', min: 0, max: 32767 };
export const UINT32_MAX = 4294967295;

/** Quoted, for messages. */
export const q = (text: string): string => JSON.stringify(text);

/** A bare address or an address with a prefix ("10.0.0.5", "10.0.0.0/24"), as OVN's ip_parse_cidr_len reads it. */
export function tryParseIPOrCIDR(text: string): CIDR | undefined {
  return tryParseCIDR(text, { allowBare: true });
}

/** A single host address, bare or with a full-length prefix ("10.0.0.1", "10.0.0.1/32"), as northd reads next hops. */
export function tryParseHostIP(text: string): IP | undefined {
  if (!text.includes('/')) return tryParseIP(text);
  const c = tryParseCIDR(text);
  if (!c || c.prefix !== maxPrefix(c.family)) return undefined;
  return c.family === 4 ? { family: 4, value: c.ip } : { family: 6, value: c.ip };
}

export interface Endpoint {
  readonly ip: IP;
  /** Undefined when no port is given. */
  readonly port?: number;
}

/**
 * A load balancer VIP or backend: "IPv4", "IPv4:port", "IPv6", "[IPv6]" or
 * "[IPv6]:port" (OVS's inet_parse_active; port 1..65535).
 *
 * @example tryParseEndpoint('[fd00::1]:80') // { ip: { family: 6, value: 0xfd00...01n }, port: 80 }
 */
export function tryParseEndpoint(text: string): Endpoint | undefined {
  let host = text;
  let portText: string | undefined;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close === -1) return undefined;
    host = text.slice(1, close);
    const rest = text.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return undefined;
      portText = rest.slice(1);
    }
    if (!host.includes(':')) return undefined;
  } else if (text.split(':').length === 2) {
    [host = '', portText] = text.split(':');
  }
  const ip = tryParseIP(host);
  if (!ip) return undefined;
  if (portText === undefined) return { ip };
  const port = parsePort(portText);
  return port === undefined ? undefined : { ip, port };
}

/** A decimal port 1..65535 without leading zeros, or undefined. */
export function parsePort(text: string): number | undefined {
  if (!/^[1-9][0-9]{0,4}$/.test(text)) return undefined;
  const n = Number(text);
  return n <= 65535 ? n : undefined;
}
