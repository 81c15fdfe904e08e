/**
 * Rule port-sec-prefix-exact (normalize.ts) on a trace: the port security
 * drops where ovn-trace's exact-address check denied what ovn-controller's
 * prefix match admits.
 *
 * A drop qualifies only if it is ls_in/ls_out_apply_port_sec acting on the
 * bit check_in_port_sec()/check_out_port_sec() set in the same pipeline
 * (not a disabled port's unconditional bit), and the flow ovn-trace checked
 * there is one portSecPrefixMismatch() says it misjudges. That flow is read
 * from the trace itself, not guessed from the case: the packet may have
 * been load-balanced (one backend: ovn-trace names none), DNATed, routed
 * back into its own switch; verdict.ts's walker already knows ovn-trace's
 * flow at every point, so each qualifying drop is turned into an output to
 * its port and the walker is asked what left there.
 */
import { formatIPv4, formatIPv6, tryParseMAC } from '../../model/addr/index.ts';
import type { Packet } from '../../model/packet/packet.ts';
import {
  type OvnTrace,
  type OvnTraceResult,
  parseFlowLine,
  parseTrace,
  portSecPrefixMismatch,
  type TraceNode,
  traceVerdict,
} from '../../backends/ovn/trace/index.ts';
import type { DiffCase } from './case.ts';
import type { PartialRule } from './compare.ts';

type Stage = 'ls_in_apply_port_sec' | 'ls_out_apply_port_sec';

/** A port security drop of the trace: where, which port, and the `drop;` line. */
export interface PortSecDrop {
  readonly datapath: string;
  readonly stage: Stage;
  readonly port: string;
  readonly line: number;
}

interface Pipe {
  readonly dp: string;
  readonly inport?: string;
  readonly outport?: string;
  /** check_in_port_sec()/check_out_port_sec() ran earlier in this pipeline. */
  readonly checked: boolean;
}

const CHECK = /^reg0\[15\] = check_(in|out)_port_sec\(\);$/;

function isLeaf(n: TraceNode, text: string | RegExp): boolean {
  return n.kind === 'leaf' && (typeof text === 'string' ? n.text === text : text.test(n.text));
}

/**
 * Drops in ls_in/ls_out_apply_port_sec that follow a port security check,
 * with the pipeline's inport/outport.
 *
 * @example portSecDrops(parseTrace(raw).root) // [{ datapath: 'ls0', stage: 'ls_out_apply_port_sec', port: 'pod0.ls0', line: 97 }]
 */
export function portSecDrops(nodes: readonly TraceNode[], pipe?: Pipe, out: PortSecDrop[] = []): PortSecDrop[] {
  for (const n of nodes) {
    if (n.kind === 'leaf') continue;
    if (n.kind === 'pipeline') {
      portSecDrops(
        n.children,
        {
          dp: n.datapath,
          ...(n.inport ? { inport: n.inport } : {}),
          ...(n.outport ? { outport: n.outport } : {}),
          checked: false,
        },
        out,
      );
      continue;
    }
    let inner = pipe;
    if (n.kind === 'table' && pipe) {
      if (
        (n.stage === 'ls_in_check_port_sec' || n.stage === 'ls_out_check_port_sec') &&
        n.children.some((c) => isLeaf(c, CHECK))
      )
        inner = { ...pipe, checked: true };
      if (pipe.checked && (n.stage === 'ls_in_apply_port_sec' || n.stage === 'ls_out_apply_port_sec')) {
        const port = n.stage === 'ls_in_apply_port_sec' ? pipe.inport : pipe.outport;
        const drop = n.children.find((c) => isLeaf(c, 'drop;'));
        if (port && drop) out.push({ datapath: pipe.dp, stage: n.stage, port, line: drop.line });
      }
    }
    portSecDrops(n.children, inner, out);
  }
  return out;
}

/** The tree with each given drop's `drop;` leaf replaced by an output to its port. */
function withProbes(nodes: readonly TraceNode[], probes: ReadonlyMap<number, string>): TraceNode[] {
  return nodes.map((n) => {
    if (n.kind !== 'leaf') return { ...n, children: withProbes(n.children, probes) };
    const port = probes.get(n.line);
    return port === undefined ? n : { ...n, text: `/* output to ${JSON.stringify(port)}, type "" */` };
  });
}

/**
 * ovn-trace's flow at each drop (by the `drop;` line), as its own check saw
 * it: the walker of verdict.ts with ovn-trace's semantics, over the tree
 * where each drop is an output.
 */
export function flowsAtDrops(
  trace: OvnTrace,
  drops: readonly PortSecDrop[],
  opts: { input: Packet; lbDst?: string },
): Map<number, Packet> {
  const probes = new Map(drops.map((d) => [d.line, d.port]));
  const probed: OvnTrace = { ...trace, root: withProbes(trace.root, probes) };
  const v = traceVerdict(probed, {
    input: opts.input,
    traced: parseFlowLine(trace.flow),
    semantics: 'ovn-trace',
    ...(opts.lbDst === undefined ? {} : { lbDst: opts.lbDst }),
  });
  return new Map(v.outputs.filter((o) => probes.has(o.line)).map((o) => [o.line, o.packet]));
}

/**
 * The port security drops of a trace that are rule port-sec-prefix-exact,
 * as a partial rule (the simulator must not drop there), or undefined.
 *
 * @example portSecRule(c, traced) // { rule: 'port-sec-prefix-exact', at: [{ datapath: 'ls0', stage: 'ls_out_apply_port_sec', port: 'pod0.ls0' }] }
 */
export function portSecRule(c: DiffCase, r: Pick<OvnTraceResult, 'raw' | 'lbBackend'>): PartialRule | undefined {
  const at = misjudged(c, r);
  return at.length
    ? { rule: 'port-sec-prefix-exact', at: at.map(({ datapath, stage, port }) => ({ datapath, stage, port })) }
    : undefined;
}

/** The rule's drops, each with the flow ovn-trace checked there. */
function misjudged(
  c: DiffCase,
  r: Pick<OvnTraceResult, 'raw' | 'lbBackend'>,
): (PortSecDrop & { readonly flow: Packet })[] {
  const trace = parseTrace(r.raw);
  const drops = portSecDrops(trace.root);
  if (drops.length === 0) return [];
  const flows = flowsAtDrops(trace, drops, {
    input: c.packet,
    ...(r.lbBackend === undefined ? {} : { lbDst: r.lbBackend }),
  });
  return drops.flatMap((d) => {
    const flow = flows.get(d.line);
    const entries = c.topology.switchPort.get(d.port)?.portSecurity ?? [];
    return flow !== undefined && portSecPrefixMismatch(entries, flow, d.stage === 'ls_in_apply_port_sec' ? 'in' : 'out')
      ? [{ ...d, flow }]
      : [];
  });
}

/** One port security entry made explicit: the address ovn-trace misjudged, now listed exactly. */
export interface WidenedEntry {
  readonly port: string;
  readonly stage: string;
  /** The entry ovn-trace checked (the first with the packet's MAC), before and after. */
  readonly entry: string;
  readonly widened: string;
}

/**
 * The case with every port security entry the rule applies to also
 * listing, exactly, the address ovn-trace misjudged (ip4.src / arp.spa /
 * ip6.src in, ip4.dst / ip6.dst out), or undefined when the rule does not
 * apply. The entry is the first with the packet's MAC, the one ovn-trace
 * checks; ovn-controller already admits that address through a prefix of
 * an entry with the same MAC, so it admits exactly the same packets either
 * way, and the case can be traced again and compared in full.
 *
 * @example widenPortSecurity(c, traced)?.entries // [{ port: 'pod0.ls0', entry: '0a:58:0a:00:00:10 10.16.0.0/24', widened: '0a:58:0a:00:00:10 10.16.0.0/24 10.16.0.77', ... }]
 */
export function widenPortSecurity(
  c: DiffCase,
  r: Pick<OvnTraceResult, 'raw' | 'lbBackend'>,
): { readonly case: DiffCase; readonly entries: readonly WidenedEntry[] } | undefined {
  const at = misjudged(c, r);
  if (at.length === 0) return undefined;
  const switchPort = new Map(c.topology.switchPort);
  const entries: WidenedEntry[] = [];
  for (const d of at) {
    const out = d.stage === 'ls_out_apply_port_sec';
    const mac = out ? d.flow['eth.dst'] : d.flow['eth.src'];
    const addr = out
      ? (d.flow['ip4.dst'] ?? d.flow['ip6.dst'])
      : (d.flow['ip4.src'] ?? d.flow['arp.spa'] ?? d.flow['ip6.src']);
    const lsp = switchPort.get(d.port);
    if (mac === undefined || addr === undefined || lsp === undefined) return undefined;
    const text = typeof addr === 'bigint' ? formatIPv6(addr) : formatIPv4(addr);
    const i = lsp.portSecurity.findIndex((e) => tryParseMAC(e.trim().split(/\s+/)[0] ?? '') === mac);
    const entry = lsp.portSecurity[i];
    if (entry === undefined) return undefined;
    const widened = `${entry.trim()} ${text}`;
    switchPort.set(d.port, { ...lsp, portSecurity: lsp.portSecurity.map((e, k) => (k === i ? widened : e)) });
    entries.push({ port: d.port, stage: d.stage, entry, widened });
  }
  return { case: { ...c, topology: { ...c.topology, switchPort } }, entries };
}
