/** A backend that records every plan it is given before passing it on (tests that count NB writes). */
import type { Backend, RowChange, RowKeys } from '../backends/backend.ts';
import type { Plan } from '../model/topology/index.ts';

export class Recording implements Backend {
  readonly kind = 'recording';
  readonly plans: Plan[] = [];
  constructor(private readonly inner: Backend) {}
  apply(p: Plan) {
    this.plans.push(p);
    return this.inner.apply(p);
  }
  read() {
    return this.inner.read();
  }
  readRows(keys: RowKeys) {
    return this.inner.readRows(keys);
  }
  watch(listener: (changes: readonly RowChange[]) => void) {
    return this.inner.watch(listener);
  }
  close() {
    return this.inner.close();
  }
}
