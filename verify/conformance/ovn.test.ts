import { conformanceSuite } from './suite.ts';
import { requireOvn, startControlPlane, type ControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { OvnProber } from '../../backends/ovn/prober.ts';

let cp: ControlPlane | undefined;

// Real OVN: the lab goes through OvnBackend into a fresh NB, northd compiles
// it, ovn-trace gives the verdicts.
const UNSUPPORTED = {
  'gw-snat-ip-inbound-no-connection':
    'ovn-trace ends the trace at a bare ct_snat on a gateway router (backends/ovn/trace/normalize.ts, gateway-ct-snat-stops)',
};
conformanceSuite(
  'ovn',
  async () => {
    cp = await startControlPlane();
    const backend = await OvnProber.connect({ remotes: cp.nb.remote, sbRemote: cp.sb.remote, dir: cp.dir });
    return {
      backend,
      close: async () => {
        await backend.close();
        await cp?.stop();
      },
    };
  },
  requireOvn('conformance: ovn') ? { unsupported: UNSUPPORTED } : { skip: 'OVN binaries missing' },
);
