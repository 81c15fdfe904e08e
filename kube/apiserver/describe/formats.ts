/**
 * The string formats the API server checks in a CRD schema (others are
 * accepted as the API server accepts them: a format it does not know
 * constrains nothing).
 */
import { isIP } from 'node:net';

const MAC = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const HOSTNAME =
  /^(?=.{1,253}$)[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const BYTE = /^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function cidr(v: string): boolean {
  const [ip, len, more] = v.split('/');
  if (ip === undefined || len === undefined || more !== undefined || !/^\d{1,3}$/.test(len)) return false;
  const family = isIP(ip);
  return family !== 0 && Number(len) <= (family === 4 ? 32 : 128);
}

const CHECKS: Readonly<Record<string, (v: string) => boolean>> = {
  ipv4: (v) => isIP(v) === 4,
  ipv6: (v) => isIP(v) === 6,
  cidr,
  mac: (v) => MAC.test(v),
  uuid: (v) => UUID.test(v),
  hostname: (v) => HOSTNAME.test(v),
  date: (v) => DATE.test(v) && !Number.isNaN(Date.parse(v)),
  'date-time': (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)),
  datetime: (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)),
  byte: (v) => BYTE.test(v),
};

/**
 * Whether a string breaks its format: true when it does, undefined when it fits or the format is not checked.
 *
 * @example formatProblem('ipv4', '10.0.0.300') // true
 */
export function formatProblem(format: string, v: string): true | undefined {
  const check = CHECKS[format];
  return check && !check(v) ? true : undefined;
}
