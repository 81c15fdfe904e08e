/**
 * Remotes as ovn-nbctl/ovsdb-client take them: `unix:PATH`, `tcp:HOST[:PORT]`,
 * `ssl:HOST[:PORT]` (IPv6 in brackets: `tcp:[::1]:6641`; port 6640 when
 * omitted), and comma-separated lists of them for clustered databases; and
 * opening a byte stream to one.
 *
 * SSL follows OVS's model: the server's certificate must chain to the given
 * CA, and the client presents its own certificate; host names are not
 * checked against the certificate (OVS PKI certificates name a role, not a
 * host), which is what ovsdb-server's own clients do.
 */
import net from 'node:net';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { tryParseIPv4, tryParseIPv6 } from '../../../model/addr/index.ts';
import { type Timers, systemTimers } from './timers.ts';
import { OvsdbConnectionClosedError, OvsdbRemoteError } from './wire/errors.ts';

export const DEFAULT_OVSDB_PORT = 6640;

export type Remote =
  | { readonly kind: 'unix'; readonly path: string }
  | { readonly kind: 'tcp' | 'ssl'; readonly host: string; readonly port: number };

/** PEM contents of the client key, client certificate and CA certificate. */
export interface TlsCredentials {
  readonly key: string | Buffer;
  readonly cert: string | Buffer;
  readonly ca: string | Buffer;
}

const HOSTNAME_RE =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * Parses one remote.
 *
 * @example parseRemote('tcp:[::1]:6641') // {kind: 'tcp', host: '::1', port: 6641}
 */
export function parseRemote(text: string): Remote {
  const colon = text.indexOf(':');
  const kind = colon < 0 ? '' : text.slice(0, colon);
  const rest = text.slice(colon + 1);
  switch (kind) {
    case 'unix':
      if (rest === '') throw new OvsdbRemoteError(text, 'unix: needs a socket path');
      return { kind: 'unix', path: rest };
    case 'tcp':
    case 'ssl':
      return { kind, ...parseHostPort(text, rest) };
    case 'punix':
    case 'ptcp':
    case 'pssl':
      throw new OvsdbRemoteError(text, `${kind}: is a passive (listening) remote; a client needs unix:, tcp: or ssl:`);
    default:
      throw new OvsdbRemoteError(text, 'expected unix:PATH, tcp:HOST[:PORT] or ssl:HOST[:PORT]');
  }
}

function parseHostPort(text: string, rest: string): { host: string; port: number } {
  let host: string;
  let portText: string | undefined;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) throw new OvsdbRemoteError(text, 'unterminated [IPv6 address]');
    host = rest.slice(1, close);
    const after = rest.slice(close + 1);
    if (after !== '' && !after.startsWith(':'))
      throw new OvsdbRemoteError(text, `unexpected ${JSON.stringify(after)} after ]`);
    portText = after === '' ? undefined : after.slice(1);
    if (tryParseIPv6(host) === undefined)
      throw new OvsdbRemoteError(text, `${JSON.stringify(host)} is not an IPv6 address`);
  } else {
    const parts = rest.split(':');
    if (parts.length > 2)
      throw new OvsdbRemoteError(text, 'an IPv6 address must be written in brackets: tcp:[::1]:6641');
    host = parts[0] ?? '';
    portText = parts[1];
    if (tryParseIPv4(host) === undefined && !(HOSTNAME_RE.test(host) && /[A-Za-z]/.test(host))) {
      throw new OvsdbRemoteError(text, `${JSON.stringify(host)} is not an IPv4 address or host name`);
    }
  }
  if (portText === undefined) return { host, port: DEFAULT_OVSDB_PORT };
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
    throw new OvsdbRemoteError(text, `bad port ${JSON.stringify(portText)}`);
  }
  return { host, port: Number(portText) };
}

/**
 * Parses a comma-separated list of remotes (a cluster's members).
 *
 * @example parseRemotes('tcp:127.0.0.1:6641,tcp:127.0.0.1:6643').length // 2
 */
export function parseRemotes(text: string): Remote[] {
  const items = text.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw new OvsdbRemoteError(text, 'empty entry in remote list');
  return items.map(parseRemote);
}

/** Inverse of {@link parseRemote}. */
export function formatRemote(r: Remote): string {
  if (r.kind === 'unix') return `unix:${r.path}`;
  const host = r.host.includes(':') ? `[${r.host}]` : r.host;
  return `${r.kind}:${host}:${r.port}`;
}

/** Reads the three PEM files ovn-nbctl takes as `-p`, `-c`, `-C`. */
export function readTlsFiles(files: { privateKey: string; certificate: string; caCert: string }): TlsCredentials {
  return { key: readFileSync(files.privateKey), cert: readFileSync(files.certificate), ca: readFileSync(files.caCert) };
}

export interface ConnectOptions {
  /** Required for `ssl:` remotes. */
  readonly tls?: TlsCredentials;
  /** Give up connecting after this many ms (default 10 s). */
  readonly connectTimeoutMs?: number;
  readonly timers?: Timers;
}

/**
 * Opens a stream to a remote; resolves once connected (for SSL: once the
 * handshake completed). Rejects with {@link OvsdbConnectionClosedError}.
 *
 * @example const socket = await connectRemote(parseRemote('unix:/run/ovn/ovnnb_db.sock'));
 */
export function connectRemote(remote: Remote, opts: ConnectOptions = {}): Promise<Duplex> {
  const timers = opts.timers ?? systemTimers;
  const name = formatRemote(remote);
  if (remote.kind === 'ssl' && opts.tls === undefined) {
    return Promise.reject(new OvsdbRemoteError(name, 'ssl: needs a client key, certificate and CA certificate'));
  }
  return new Promise<Duplex>((resolve, reject) => {
    let socket: net.Socket;
    const ready = remote.kind === 'ssl' ? 'secureConnect' : 'connect';
    if (remote.kind === 'unix') socket = net.connect({ path: remote.path });
    else if (remote.kind === 'tcp') socket = net.connect({ host: remote.host, port: remote.port });
    else {
      const creds = opts.tls as TlsCredentials;
      socket = tls.connect({
        host: remote.host,
        port: remote.port,
        key: creds.key,
        cert: creds.cert,
        ca: creds.ca,
        checkServerIdentity: () => undefined,
      });
    }
    const timer = timers.setTimeout(() => {
      socket.destroy();
      reject(new OvsdbConnectionClosedError(`${name}: connect timed out`));
    }, opts.connectTimeoutMs ?? 10_000);
    const onError = (err: Error): void => {
      timers.clearTimeout(timer);
      socket.destroy();
      reject(new OvsdbConnectionClosedError(`${name}: ${err.message}`, false, { cause: err }));
    };
    socket.once('error', onError);
    socket.once(ready, () => {
      timers.clearTimeout(timer);
      socket.off('error', onError);
      if (remote.kind !== 'unix') socket.setNoDelay(true);
      resolve(socket);
    });
  });
}
