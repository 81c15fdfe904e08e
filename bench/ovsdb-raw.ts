/**
 * The baseline of `kovn bench ovsdb`: the least code that writes the same
 * rows to NB in the same batches. A unix socket, one JSON-RPC `transact` at
 * a time, the reply found by JSON.parse on what has arrived (ovsdb-server
 * sends nothing else on a connection without monitors). No cache, no
 * monitor, no schema, no checks beyond "the reply has no error".
 */
import { connect, type Socket } from 'node:net';

export interface BenchSwitch {
  readonly name: string;
}
export interface BenchPort {
  readonly name: string;
  /** Index into the switch list. */
  readonly switchIndex: number;
  readonly addresses: string;
  readonly externalIds: Readonly<Record<string, string>>;
}

/** One row per plan operation, in plan order (switches first, then ports). */
export type BenchRow =
  | { readonly kind: 'switch'; readonly index: number; readonly row: BenchSwitch }
  | { readonly kind: 'port'; readonly row: BenchPort };

/**
 * Writes `rows` in chunks of `batch` (one transaction each) and returns the
 * number of transactions.
 *
 * @example await rawWrite({ socket: '/tmp/kovn-cp-x/nb.sock', rows, batch: 500 })
 */
export async function rawWrite(opts: { socket: string; rows: readonly BenchRow[]; batch: number }): Promise<number> {
  const conn = await open(opts.socket);
  const switchUuids = new Map<number, string>();
  let transactions = 0;
  try {
    for (let at = 0; at < opts.rows.length; at += opts.batch) {
      const chunk = opts.rows.slice(at, at + opts.batch);
      const { ops, inserted } = chunkOps(chunk, switchUuids);
      const result = (await conn.request('transact', ['OVN_Northbound', ...ops])) as {
        uuid?: [string, string];
        error?: string;
        details?: string;
      }[];
      const failed = result.find((r) => r !== null && r.error !== undefined);
      if (failed !== undefined) throw new Error(`raw writer: ${failed.error}: ${failed.details ?? ''}`);
      for (const [opIndex, switchIndex] of inserted)
        switchUuids.set(switchIndex, (result[opIndex]!.uuid as [string, string])[1]);
      transactions++;
    }
  } finally {
    conn.close();
  }
  return transactions;
}

function chunkOps(chunk: readonly BenchRow[], switchUuids: ReadonlyMap<number, string>) {
  const ops: unknown[] = [];
  const inserted: [number, number][] = [];
  const ports = new Map<number, string[]>();
  const tag = (ids: Readonly<Record<string, string>>) => ['map', Object.entries({ ...ids, vendor: 'kovn' })];
  chunk.forEach((r, i) => {
    if (r.kind === 'switch') {
      inserted.push([ops.length, r.index]);
      ops.push({
        op: 'insert',
        table: 'Logical_Switch',
        row: { name: r.row.name, external_ids: tag({}) },
        'uuid-name': `s${r.index}`,
      });
      return;
    }
    const p = r.row;
    ops.push({
      op: 'insert',
      table: 'Logical_Switch_Port',
      row: { name: p.name, addresses: p.addresses, external_ids: tag(p.externalIds) },
      'uuid-name': `p${i}`,
    });
    let list = ports.get(p.switchIndex);
    if (list === undefined) ports.set(p.switchIndex, (list = []));
    list.push(`p${i}`);
  });
  for (const [s, names] of ports) {
    const uuid = switchUuids.get(s);
    const ref = uuid === undefined ? ['named-uuid', `s${s}`] : ['uuid', uuid];
    ops.push({
      op: 'mutate',
      table: 'Logical_Switch',
      where: [['_uuid', '==', ref]],
      mutations: [['ports', 'insert', ['set', names.map((n) => ['named-uuid', n])]]],
    });
  }
  return { ops, inserted };
}

interface Conn {
  request(method: string, params: unknown[]): Promise<unknown>;
  close(): void;
}

function open(path: string): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const sock: Socket = connect(path);
    let buffered = '';
    let waiting: { resolve: (v: unknown) => void; reject: (e: Error) => void } | undefined;
    let id = 0;
    sock.setEncoding('utf8');
    sock.on('data', (data: string) => {
      buffered += data;
      let msg: { result?: unknown; error?: unknown };
      try {
        msg = JSON.parse(buffered) as typeof msg;
      } catch {
        return; // not complete yet
      }
      buffered = '';
      const w = waiting;
      waiting = undefined;
      if (msg.error !== null && msg.error !== undefined)
        w?.reject(new Error(`raw writer: ${JSON.stringify(msg.error)}`));
      else w?.resolve(msg.result);
    });
    sock.on('error', (e) => (waiting ? waiting.reject(e) : reject(e)));
    sock.on('connect', () =>
      resolve({
        request: (method, params) =>
          new Promise((res, rej) => {
            waiting = { resolve: res, reject: rej };
            sock.write(JSON.stringify({ id: id++, method, params }));
          }),
        close: () => sock.destroy(),
      }),
    );
  });
}
