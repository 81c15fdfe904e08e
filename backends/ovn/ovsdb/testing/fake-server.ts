/**
 * A scripted stand-in for ovsdb-server on a unix socket, for session tests
 * that need exact control over replies (drop the connection after a
 * transact, answer garbage). It serves just what OvsdbSession asks for:
 * get_schema, the _Server monitor (a standalone database), set_db_change_aware,
 * monitor_cond_since (empty), echo; `transact` goes to the test's handler.
 * Test-only code.
 */
import net from 'node:net';
import { JsonSplitter } from '../framing.ts';
import { ZERO_TXN_ID } from '../wire/monitor.ts';

export interface FakeConnection {
  reply(id: unknown, result: unknown): void;
  /** Sends an update3 for the connection's monitor_cond_since monitor. */
  update3(updates: Record<string, unknown>): void;
  sendRaw(text: string): void;
  destroy(): void;
}

export type TransactHandler = (params: unknown[], id: unknown, conn: FakeConnection) => void;

const SERVER_SCHEMA = {
  name: '_Server',
  version: '1.2.0',
  tables: {
    Database: {
      columns: {
        name: { type: 'string' },
        model: { type: { key: { type: 'string', enum: ['set', ['clustered', 'relay', 'standalone']] } } },
        connected: { type: 'boolean' },
        leader: { type: 'boolean' },
        index: { type: { key: 'integer', min: 0 } },
      },
    },
  },
};

export class FakeOvsdbServer {
  readonly transacts: unknown[][] = [];
  connections = 0;
  onTransact: TransactHandler = (params, id, conn) =>
    conn.reply(
      id,
      params.slice(1).map(() => ({})),
    );
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  constructor(
    readonly path: string,
    readonly schema: { name: string } & Record<string, unknown>,
  ) {}

  listen(): Promise<void> {
    const server = net.createServer((socket) => this.serve(socket));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.path, () => resolve());
    });
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private serve(socket: net.Socket): void {
    this.connections++;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    const splitter = new JsonSplitter();
    let monitorId: unknown = null;
    const conn: FakeConnection = {
      reply: (id, result) => socket.write(JSON.stringify({ id, result, error: null })),
      update3: (updates) =>
        socket.write(JSON.stringify({ id: null, method: 'update3', params: [monitorId, ZERO_TXN_ID, updates] })),
      sendRaw: (text) => socket.write(text),
      destroy: () => socket.destroy(),
    };
    socket.on('data', (chunk: Buffer) => {
      for (const msg of splitter.push(chunk) as { id: unknown; method: string; params: unknown[] }[]) {
        if (msg.method === 'monitor_cond_since') monitorId = msg.params[1];
        this.handle(msg, conn);
      }
    });
  }

  private handle(msg: { id: unknown; method: string; params: unknown[] }, conn: FakeConnection): void {
    const { id, method, params } = msg;
    switch (method) {
      case 'get_schema':
        return conn.reply(id, params[0] === '_Server' ? SERVER_SCHEMA : this.schema);
      case 'monitor_cond':
        return conn.reply(id, {
          Database: {
            '11111111-1111-1111-1111-111111111111': {
              initial: { name: this.schema.name, model: 'standalone', connected: true, leader: true },
            },
          },
        });
      case 'monitor_cond_since':
        return conn.reply(id, [false, ZERO_TXN_ID, {}]);
      case 'set_db_change_aware':
        return conn.reply(id, {});
      case 'echo':
        return conn.reply(id, params);
      case 'transact':
        this.transacts.push(params);
        return this.onTransact(params, id, conn);
      default:
        unknownMethod(conn, id);
    }
  }
}

function unknownMethod(conn: FakeConnection, id: unknown): void {
  conn.sendRaw(JSON.stringify({ id, result: null, error: 'unknown method' }));
}
