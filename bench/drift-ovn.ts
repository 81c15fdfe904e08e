/**
 * The foreign writer of `kovn bench controller --backend ovn --drift N`: its
 * own connection to NB through our OVSDB client, writing as an operator's
 * tool would. It finds kovn's rows through kovn's session cache (only to
 * know their uuids); a deleted child row is taken out of its parent (NB then
 * deletes it, as `ovn-nbctl lsp-del` does), a deleted root row is deleted.
 * Its own rows: half are switches of another vendor, half are ports with no
 * vendor inside a switch of ours (kovn must keep them when it writes that
 * switch).
 */
import type { OvnBackend } from '../backends/ovn/nb/backend.ts';
import { NB_TABLE } from '../backends/ovn/nb/tables.ts';
import { NbView } from '../backends/ovn/nb/view.ts';
import { OpBuilder, OvsdbClient, type nb } from '../backends/ovn/ovsdb/index.ts';
import type { Operation } from '../backends/ovn/ovsdb/wire/operation.ts';
import { driftChange, type ForeignWriter } from './drift.ts';

const DB = 'OVN_Northbound';

/**
 * @example const writer = await ovnForeignWriter(backend, cp.nb.remote);
 */
export async function ovnForeignWriter(be: OvnBackend, remote: string): Promise<ForeignWriter> {
  const client = await OvsdbClient.connect(remote);
  const b = new OpBuilder<nb.Tables>(await client.getSchema(DB));
  const view = new NbView(be.session.cache);
  const mine: { table: 'Logical_Switch' | 'Logical_Switch_Port'; name: string }[] = [];
  const send = async (ops: readonly Operation[]) => {
    await client.transact(DB, ops);
  };
  return {
    async tamper(table, key, change) {
      const row = view.find(table, key);
      if (row === undefined) return false;
      const nbTable = NB_TABLE[table];
      const where = [b.whereUuid(row._uuid)];
      if (change) {
        // The same change as on the simulator, in NB's columns.
        const cols =
          table === 'switchPort'
            ? { addresses: driftChange(table, undefined).addresses }
            : { external_ids: { ...row.external_ids, drift: 'foreign' } };
        await send([b.update(nbTable as never, where as never, cols as never)]);
        return true;
      }
      const parent = view.parentOf(table, row._uuid);
      if (parent === undefined) await send([b.delete(nbTable as never, where as never)]);
      else
        await send([
          b.mutate(
            NB_TABLE[parent.slot.table] as never,
            [b.whereUuid(parent.row._uuid)] as never,
            [[parent.slot.column, 'delete', [row._uuid]]] as never,
          ),
        ]);
      return true;
    },
    async addForeign(n) {
      const ours = view.owned('switch')[0];
      for (let i = 0; i < n; i++) {
        const name = `foreign-${i}`;
        if (i % 2 === 0 || ours === undefined) {
          mine.push({ table: 'Logical_Switch', name });
          await send([b.insert('Logical_Switch', { name, external_ids: { vendor: 'other' } } as never)]);
          continue;
        }
        mine.push({ table: 'Logical_Switch_Port', name });
        await send([
          b.insert('Logical_Switch_Port', { name, addresses: ['unknown'] } as never, { uuidName: 'p' }),
          b.mutate('Logical_Switch', [b.whereUuid(ours._uuid)] as never, [['ports', 'insert', ['p']]] as never),
        ]);
      }
    },
    async foreign() {
      const out: string[] = [];
      for (const { table, name } of mine)
        for (const row of be.session.cache.lookup(table, 'name', name)) out.push(`${table} ${JSON.stringify(row)}`);
      return out;
    },
    async close() {
      client.close();
    },
  };
}
