/**
 * The ADD result across spec versions (SPEC.md section 5): decoding a
 * `prevResult` written in the config's version into the 1.1 shape the daemon
 * speaks, encoding a result into the version a runtime asked for (0.3.x and
 * 0.4.0 carry `ips[].version`; only 1.1 has the interface and route fields
 * `mtu`, `socketPath`, `pciID`, `advmss`, `priority`, `table`, `scope`), and
 * chaining this plugin's result after a previous plugin's.
 */
import { isIP } from 'node:net';
import {
  CNI_ERROR,
  type CniDns,
  type CniInterface,
  type CniIpConfig,
  type CniResult,
  type CniRoute,
} from './protocol.ts';
import { accept, type Checked, refuse } from './problem.ts';
import { compareVersions, isLegacyResultVersion } from './version.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether text is an address with a prefix length in range for its family.
 *
 * @example
 * isCidr('10.16.0.5/16') // true
 * isCidr('10.16.0.5') // false
 */
export function isCidr(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const family = isIP(text.slice(0, slash));
  const prefix = text.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

class Decoder {
  problem: { path: string; msg: string } | undefined;
  constructor(readonly root: string) {}

  fail(path: string, msg: string): undefined {
    this.problem ??= { path: `${this.root}.${path}`, msg: `${this.root}.${path} ${msg}` };
    return undefined;
  }

  string(o: Json, key: string, path: string, check?: (s: string) => boolean, what = 'a string'): string | undefined {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || (check && !check(v))) return this.fail(`${path}.${key}`, `must be ${what}`);
    return v;
  }

  uint(o: Json, key: string, path: string): number | undefined {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
      return this.fail(`${path}.${key}`, 'must be a non-negative integer');
    return v;
  }

  strings(o: Json, key: string, path: string): string[] | undefined {
    const v = o[key];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))
      return this.fail(`${path}.${key}`, 'must be a list of strings');
    return v as string[];
  }

  list(o: Json, key: string): Json[] {
    const v = o[key];
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every(isObject)) {
      this.fail(key, 'must be a list of objects');
      return [];
    }
    return v;
  }
}

/** Copies the defined fields only: the result's JSON never carries `undefined`. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const isAddress = (s: string) => isIP(s) !== 0;

function decodeInterface(d: Decoder, o: Json, path: string): CniInterface {
  const name = d.string(o, 'name', path);
  if (name === undefined) d.fail(`${path}.name`, 'is required');
  return defined({
    name: name ?? '',
    mac: d.string(o, 'mac', path),
    mtu: d.uint(o, 'mtu', path),
    sandbox: d.string(o, 'sandbox', path),
    socketPath: d.string(o, 'socketPath', path),
    pciID: d.string(o, 'pciID', path),
  });
}

function decodeIp(d: Decoder, o: Json, path: string, interfaces: number): CniIpConfig {
  const address = d.string(o, 'address', path, isCidr, 'an address in CIDR notation');
  if (address === undefined) d.fail(`${path}.address`, 'is required');
  const iface = d.uint(o, 'interface', path);
  if (iface !== undefined && iface >= interfaces)
    d.fail(`${path}.interface`, `is ${iface}, but there are ${interfaces} interfaces`);
  return defined({
    address: address ?? '',
    gateway: d.string(o, 'gateway', path, isAddress, 'an IP address'),
    interface: iface,
  });
}

function decodeRoute(d: Decoder, o: Json, path: string): CniRoute {
  const dst = d.string(o, 'dst', path, isCidr, 'a destination in CIDR notation');
  if (dst === undefined) d.fail(`${path}.dst`, 'is required');
  return defined({
    dst: dst ?? '',
    gw: d.string(o, 'gw', path, isAddress, 'an IP address'),
    mtu: d.uint(o, 'mtu', path),
    advmss: d.uint(o, 'advmss', path),
    priority: d.uint(o, 'priority', path),
    table: d.uint(o, 'table', path),
    scope: d.uint(o, 'scope', path),
  });
}

function decodeDns(d: Decoder, o: Json, path: string): CniDns {
  return defined({
    nameservers: d.strings(o, 'nameservers', path),
    domain: d.string(o, 'domain', path),
    search: d.strings(o, 'search', path),
    options: d.strings(o, 'options', path),
  });
}

/**
 * Reads a result (a `prevResult`, a result of any supported version) into the
 * 1.1 shape, labelled with `cniVersion`. Problems are code 6 with the path of
 * the first bad field, e.g. `config.prevResult.ips[0].address`.
 *
 * @example
 * decodeResult({ips: [{version: '4', address: '10.0.0.2/24'}]}, '0.4.0', 'config.prevResult')
 * // {ok: true, value: {cniVersion: '0.4.0', ips: [{address: '10.0.0.2/24'}]}}
 */
export function decodeResult(json: unknown, cniVersion: string, root: string): Checked<CniResult> {
  if (!isObject(json)) return refuse({ code: CNI_ERROR.decodeFailure, path: root, msg: `${root} must be an object` });
  const d = new Decoder(root);
  const interfaces = d.list(json, 'interfaces').map((o, i) => decodeInterface(d, o, `interfaces[${i}]`));
  const ips = d.list(json, 'ips').map((o, i) => decodeIp(d, o, `ips[${i}]`, interfaces.length));
  const routes = d.list(json, 'routes').map((o, i) => decodeRoute(d, o, `routes[${i}]`));
  let dns: CniDns | undefined;
  if (json.dns !== undefined) {
    if (isObject(json.dns)) dns = decodeDns(d, json.dns, 'dns');
    else d.fail('dns', 'must be an object');
  }
  if (d.problem) return refuse({ code: CNI_ERROR.decodeFailure, ...d.problem });
  return accept(
    defined({
      cniVersion,
      interfaces: json.interfaces === undefined ? undefined : interfaces,
      ips: json.ips === undefined ? undefined : ips,
      routes: json.routes === undefined ? undefined : routes,
      dns,
    }),
  );
}

/**
 * The result as JSON in the version a runtime asked for.
 *
 * @example
 * encodeResult({cniVersion: '1.1.0', ips: [{address: 'fd00::5/64', interface: 0}]}, '0.4.0')
 * // {cniVersion: '0.4.0', ips: [{version: '6', address: 'fd00::5/64', interface: 0}]}
 */
export function encodeResult(result: CniResult, cniVersion: string): Json {
  const legacy = isLegacyResultVersion(cniVersion);
  const has11 = compareVersions(cniVersion, '1.1.0') >= 0;
  const out: Json = { cniVersion };
  if (result.interfaces)
    out.interfaces = result.interfaces.map((i) =>
      has11 ? defined({ ...i }) : defined({ name: i.name, mac: i.mac, sandbox: i.sandbox }),
    );
  if (result.ips)
    out.ips = result.ips.map((ip) =>
      defined({
        ...(legacy ? { version: isIP(ip.address.split('/')[0] ?? '') === 6 ? '6' : '4' } : {}),
        address: ip.address,
        gateway: ip.gateway,
        interface: ip.interface,
      }),
    );
  if (result.routes)
    out.routes = result.routes.map((r) => (has11 ? defined({ ...r }) : defined({ dst: r.dst, gw: r.gw })));
  if (result.dns) out.dns = defined({ ...result.dns });
  return out;
}

/**
 * This plugin's result chained after the previous plugin's (SPEC.md: a plugin
 * given a `prevResult` outputs it with its own changes): interfaces, ips and
 * routes appended, this result's interface indexes shifted past the previous
 * interfaces; the previous DNS kept unless it had none.
 *
 * @example
 * chainResult({cniVersion: '1.0.0', interfaces: [{name: 'lo'}]},
 *             {cniVersion: '1.0.0', interfaces: [{name: 'eth0'}], ips: [{address: '10.16.0.5/16', interface: 0}]})
 * // interfaces [lo, eth0], ips [{address: '10.16.0.5/16', interface: 1}]
 */
export function chainResult(prev: CniResult, own: CniResult): CniResult {
  const shift = prev.interfaces?.length ?? 0;
  const ips = [
    ...(prev.ips ?? []),
    ...(own.ips ?? []).map((ip) => (ip.interface === undefined ? ip : { ...ip, interface: ip.interface + shift })),
  ];
  const interfaces = [...(prev.interfaces ?? []), ...(own.interfaces ?? [])];
  const routes = [...(prev.routes ?? []), ...(own.routes ?? [])];
  const dns = prev.dns && Object.keys(prev.dns).length > 0 ? prev.dns : own.dns;
  return defined({ cniVersion: own.cniVersion, interfaces, ips, routes, dns });
}
