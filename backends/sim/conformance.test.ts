import { conformanceSuite } from '../conformance/suite.ts';
import { SimBackend } from './sim-backend.ts';

// Every conformance probe runs on the simulator: none is unsupported.
conformanceSuite('sim', async () => {
  const backend = new SimBackend();
  return { backend, close: () => backend.close() };
});
