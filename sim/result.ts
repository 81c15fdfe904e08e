/**
 * A simulation result as text and as JSON (the `kovn trace --json` shape of
 * docs/architecture.md ("The kovn command"): `{"verdict", "outport"?, "stages"}` plus outputs, drops, the
 * conntrack states seen and the choices made).
 */
import { describePacket, packetToJSON } from '../model/packet/format.ts';
import type { SimResult } from './simulate.ts';
import { formatTrace, traceToJSON } from './trace.ts';

/** The port the probe reached: the first forwarded output, else the first output. */
export function mainOutport(r: SimResult): string | undefined {
  return (r.outputs.find((o) => o.generated === undefined) ?? r.outputs[0])?.port;
}

/**
 * @example JSON.stringify(resultToJSON(simulate(net, input)))
 * // {"verdict":"delivered","outport":"db-0.prod","outputs":[...],"stages":[...],...}
 */
export function resultToJSON(r: SimResult): object {
  const outport = mainOutport(r);
  return {
    verdict: r.verdict,
    ...(outport !== undefined ? { outport } : {}),
    outputs: r.outputs.map((o) => ({
      port: o.port,
      datapath: o.datapath,
      ...(o.generated ? { generated: o.generated } : {}),
      packet: packetToJSON(o.packet),
    })),
    ...(r.drop ? { drop: r.drop } : {}),
    drops: r.drops,
    ctLookups: r.ctLookups,
    choices: r.choices,
    stages: traceToJSON(r.stages),
  };
}

/** The trace, then one line per output (or the drop). */
export function formatResult(r: SimResult): string {
  const lines = [formatTrace(r.stages), ''];
  for (const o of r.outputs)
    lines.push(`output "${o.port}"${o.generated ? ` (${o.generated})` : ''}: ${describePacket(o.packet)}`);
  if (r.verdict === 'dropped' && r.drop) lines.push(`dropped in ${r.drop.datapath} ${r.drop.stage}: ${r.drop.reason}`);
  return lines.join('\n');
}
