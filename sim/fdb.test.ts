// MAC learning (northd 23.03 ls_in_lookup_fdb / ls_in_put_fdb / get_fdb): a port with `unknown`
// addresses and no port security learns the MACs it sends; a later packet to such a MAC goes to
// that port alone instead of every `unknown` port. The same sequence on real packets:
// verify/datapath/fdb.test.ts.
import { describe, expect, it } from 'vitest';
import { compileNetwork } from './compile/network.ts';
import type { ConntrackState } from './conntrack/state.ts';
import { FDB_EXPECTED, FDB_SEQUENCE, fdbTopology, fromBehind, toBehind } from './fdb.fixture.ts';
import { simulate } from './simulate.ts';

describe('MAC learning in the simulator', () => {
  it('unknown unicast floods until a learning port sends from the MAC, then goes to that port', () => {
    const net = compileNetwork(fdbTopology());
    let ct: ConntrackState | undefined;
    const seen = FDB_SEQUENCE.map((step) => {
      const r = simulate(net, { inport: step.inport, packet: step.packet(), ...(ct ? { conntrack: ct } : {}) });
      ct = r.conntrack;
      return r.outputs
        .map((o) => o.port)
        .sort()
        .join(',');
    });
    expect(seen).toEqual(FDB_EXPECTED);
    // s1's port security keeps it from learning; u2 took the MAC over from u1.
    expect([...ct!.fdb.values()]).toEqual(['u2']);
  });

  it('a packet does not see the MAC it teaches (OVS learns after it, through pinctrl and the SB)', () => {
    const net = compileNetwork(fdbTopology());
    const taught = simulate(net, { inport: 'u1', packet: fromBehind() });
    expect(taught.conntrack.fdb.size).toBe(1);
    expect(taught.stages.some((st) => st.stage === 'ls_in_put_fdb')).toBe(true);
    const again = simulate(net, { inport: 'u1', packet: fromBehind(), conntrack: taught.conntrack });
    expect(again.stages.some((st) => st.stage === 'ls_in_put_fdb')).toBe(false);
  });

  it('a conntrack flush keeps what was learned', () => {
    const net = compileNetwork(fdbTopology());
    const taught = simulate(net, { inport: 'u1', packet: fromBehind() });
    const after = simulate(net, { inport: 'c', packet: toBehind(), conntrack: taught.conntrack.flushed() });
    expect(after.outputs.map((o) => o.port)).toEqual(['u1']);
  });
});
