/**
 * The comment and error lines ovn-trace 23.03 prints among actions
 * (`/* ... *\/` and `*** ...`), each one we know by its exact text in
 * utilities/ovn-trace.c. An unknown one is a TraceParseError.
 */
import { parseMAC } from '../../../model/addr/index.ts';
import { TraceParseError } from './errors.ts';
import type { LeafNode } from './parse.ts';

export type LeafComment =
  | { readonly kind: 'output'; readonly port: string; readonly type: string }
  | { readonly kind: 'mac-binding'; readonly mac: number }
  | { readonly kind: 'loopback' }
  | { readonly kind: 'ttl-underflow' }
  | { readonly kind: 'nat-src'; readonly vip: string }
  | { readonly kind: 'error' }
  | { readonly kind: 'info' };

/** Comments with no effect on the flow or the verdict. */
const INFO: readonly RegExp[] = [
  /^\/\* Replacing type "[^"]*" outport "(?:[^"\\]|\\.)*" with distributed port "(?:[^"\\]|\\.)*"\. \*\/$/,
  /^\/\* MAC binding to [0-9a-f:]{17} found\. \*\/$/, // lookup_arp / lookup_nd: register result only
  /^\/\* MAC binding found\. \*\/$/,
  /^\/\* lookup failed - No MAC binding\. \*\/$/,
  /^\/\* MAC lookup for [0-9a-f:]{17} found in FDB\. \*\/$/,
  /^\/\* lookup mac failed in mac learning table\. \*\/$/,
  /^\/\* We assume that this packet is DHCPDISCOVER or DHCPREQUEST\. \*\/$/,
  /^\*\*\* no load balancing destination \(use --lb-dst\)$/, // ct_lb goes on without DNAT
  /^\*\*\* dns_lookup action not implemented$/,
];

/** Errors after which that branch of the trace has no output. */
const ERRORS: readonly RegExp[] = [
  /^\*\*\* output to null logical port$/,
  /^\*\*\* unknown port or multicast group \d+$/,
  /^\*\*\* output to type "[^"]*" port "(?:[^"\\]|\\.)*" with no or invalid distributed port$/,
  /^\*\*\* TTL decrement of non-IP packet$/,
  /^\*\*\* error obtaining flow stats .*$/,
  /^\*\*\* no OpenFlow flows$/,
];

/**
 * Classifies a `/* ... *\/` or `*** ...` line.
 *
 * @example leafComment({ kind: 'leaf', line: 9, text: '/* output to "p2", type "" *\/' }) // { kind: 'output', port: 'p2', type: '' }
 */
export function leafComment(n: LeafNode): LeafComment {
  const t = n.text;
  const out = /^\/\* output to "((?:[^"\\]|\\.)*)", type "([^"]*)" \*\/$/.exec(t);
  if (out) return { kind: 'output', port: JSON.parse(`"${out[1] ?? ''}"`) as string, type: out[2] ?? '' };
  const mac = /^\/\* MAC binding to ([0-9a-f:]{17})\. \*\/$/.exec(t);
  if (mac) return { kind: 'mac-binding', mac: parseMAC(mac[1] ?? '') };
  if (t === '/* No MAC binding. */') return { kind: 'mac-binding', mac: 0 };
  if (t === '/* omitting output because inport == outport && !flags.loopback */') return { kind: 'loopback' };
  if (t === '*** TTL underflow') return { kind: 'ttl-underflow' };
  const nat = /^\/\* nat\(src=([^)]*)\) \*\/$/.exec(t);
  if (nat) return { kind: 'nat-src', vip: nat[1] ?? '' };
  if (INFO.some((r) => r.test(t))) return { kind: 'info' };
  if (ERRORS.some((r) => r.test(t))) return { kind: 'error' };
  throw new TraceParseError('unknown-comment', 'unknown ovn-trace comment or error line', {
    line: n.line,
    text: n.text,
  });
}
