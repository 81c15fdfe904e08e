/**
 * simulate(): one packet through the compiled network, from a logical port,
 * through every pipeline it reaches, to the ports it leaves by. Pure: the
 * conntrack state comes in and a new one goes out; choices (LB backends,
 * ECMP members) are made by the injected selector.
 */
import { ConntrackState } from './conntrack/state.ts';
import { ConntrackTx } from './conntrack/tx.ts';
import type { RouterDp, SimNetwork, SwitchDp } from './compile/types.ts';
import { SimPacket } from '../model/packet/canonical.ts';
import { asOvsKeys, type Packet } from '../model/packet/packet.ts';
import { NO_CARRY } from './pipeline/context.ts';
import { runRouter } from './pipeline/router.ts';
import {
  MAX_PASSES,
  makeJob,
  Run,
  type StageRun,
  type ChoiceMade,
  type CtLookupRecord,
  type Job,
  type Selector,
  type SimDrop,
  type SimOutput,
} from './pipeline/run.ts';
import { runSwitch } from './pipeline/switch.ts';
import type { TraceStage } from './trace.ts';

export interface SimInput {
  /** The logical switch port (or router port) the packet enters from. */
  readonly inport: string;
  readonly packet: Packet;
  /** Conntrack state from an earlier step (default: empty). */
  readonly conntrack?: ConntrackState;
  /** Picks LB backends and ECMP members (default: always the first). */
  readonly select?: Selector;
  /** Record the per-stage trace (default true; benchmarks turn it off). */
  readonly trace?: boolean;
}

export interface SimResult {
  /** `delivered` when at least one packet left the network (forwarded or generated). */
  readonly verdict: 'delivered' | 'dropped';
  readonly outputs: readonly SimOutput[];
  /** Every stage with something to say, in order. Empty when tracing is off. */
  readonly stages: readonly TraceStage[];
  readonly conntrack: ConntrackState;
  /** The first drop (the one that decided a dropped verdict). */
  readonly drop?: SimDrop | undefined;
  readonly drops: readonly SimDrop[];
  /** Every conntrack lookup/commit, with the state it reported (ovn-trace `--ct` order). */
  readonly ctLookups: readonly CtLookupRecord[];
  /** Every choice made (LB backend, ECMP member), with the index picked. */
  readonly choices: readonly ChoiceMade[];
  /** Datapath pipelines run (at most MAX_PASSES + 1: a forwarding loop ends there). */
  readonly passes: number;
}

/** Thrown for inputs that cannot be simulated at all (an unknown inport). */
export class SimulationError extends Error {
  override readonly name = 'SimulationError';
  constructor(
    readonly code: 'unknown-inport' | 'loop',
    message: string,
  ) {
    super(message);
  }
}

const FIRST: Selector = () => 0;

function firstJob(net: SimNetwork, inport: string, packet: Packet): Job {
  const place = net.places.get(inport);
  if (place === undefined && !net.ports.has(inport))
    throw new SimulationError(
      'unknown-inport',
      `simulate: inport ${JSON.stringify(inport)} is not a port of the network`,
    );
  if (place === undefined)
    throw new SimulationError('unknown-inport', `simulate: the datapath of port ${inport} is missing`);
  return makeJob(
    { dp: place.dp, pipeline: 'ingress', inport, outport: '', packet, carry: NO_CARRY, inInfo: place.info },
    0,
    undefined,
  );
}

function runJob(run: Run, job: Job): void {
  const s = run.stages;
  s.begin(job);
  if (job.dp.kind === 'switch') runSwitch(s as StageRun<SwitchDp>);
  else runRouter(s as StageRun<RouterDp>);
}

/**
 * @example
 * const net = compileNetwork(topology);
 * const syn = simulate(net, { inport: 'web-0.default', packet: tcpPacket({ ethSrc, ethDst, src: '10.16.0.2', dst:
 * '10.16.0.3', sport: 40000, dport: 80 }) });
 * syn.verdict; // 'delivered'
 * const synAck = simulate(net, { inport: 'db-0.default', packet: reply, conntrack: syn.conntrack });
 */
export function simulate(net: SimNetwork, input: SimInput): SimResult {
  const tx = new ConntrackTx(input.conntrack ?? ConntrackState.EMPTY);
  const run = new Run(net, tx, input.select ?? FIRST, input.trace !== false);
  // The packet as OVS would key it (an ARP opcode keeps 8 bits), as ovn-trace traces it.
  run.push(firstJob(net, input.inport, SimPacket.of(asOvsKeys(input.packet))));
  for (let job = run.pop(); job !== undefined; job = run.pop()) {
    if (++run.passes > MAX_PASSES) {
      run.drops.push({
        datapath: job.dp.name,
        stage: '-',
        reason: `more than ${MAX_PASSES} datapath passes (a forwarding loop)`,
      });
      break;
    }
    runJob(run, job);
  }
  run.release();
  return {
    verdict: run.outputs.length > 0 ? 'delivered' : 'dropped',
    outputs: run.outputs,
    stages: run.trace ?? [],
    conntrack: tx.finish(),
    drop: run.drops[0],
    drops: run.drops,
    ctLookups: run.ctLookups,
    choices: run.choices,
    passes: run.passes,
  };
}
