import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../test/fc.ts';
import { LeaseStore } from './lease-store.ts';
import { SlotTable } from './slot-table.ts';

describe('SlotTable', () => {
  it('finds every entry after deletions inside long probe runs (backward shift)', () => {
    // Every key hashes to one of two buckets: the worst case for linear probing.
    const hashOf = (slot: number) => (slot % 2) * 7;
    const t = new SlotTable(16);
    const live = new Set<number>();
    const find = (slot: number) => {
      for (let i = hashOf(slot) & t.mask; t.t[2 * i + 1] !== 0; i = (i + 1) & t.mask)
        if (t.t[2 * i + 1] === slot + 1) return true;
      return false;
    };
    for (let s = 0; s < 200; s++) {
      t.insert(hashOf(s), s);
      live.add(s);
    }
    for (let s = 0; s < 200; s += 3) {
      expect(t.remove(hashOf(s), s)).toBe(true);
      live.delete(s);
    }
    expect(t.remove(hashOf(0), 0)).toBe(false);
    expect(t.size).toBe(live.size);
    for (let s = 0; s < 200; s++) expect(find(s)).toBe(live.has(s));
  });
});

describe('LeaseStore', () => {
  const cmd = fc.oneof(
    fc.record({
      k: fc.constant('add' as const),
      owner: fc.integer({ min: 0, max: 40 }),
      sid: fc.integer({ min: 0, max: 2 }),
      ip: fc.integer({ min: 0, max: 60 }),
      mac: fc.integer({ min: 0, max: 60 }),
    }),
    fc.record({ k: fc.constant('remove' as const), owner: fc.integer({ min: 0, max: 40 }) }),
    fc.record({
      k: fc.constant('setV4' as const),
      owner: fc.integer({ min: 0, max: 40 }),
      ip: fc.option(fc.integer({ min: 0, max: 60 })),
    }),
    fc.record({
      k: fc.constant('setV6' as const),
      owner: fc.integer({ min: 0, max: 40 }),
      ip: fc.option(fc.integer({ min: 0, max: 60 })),
    }),
    fc.record({
      k: fc.constant('setMac' as const),
      owner: fc.integer({ min: 0, max: 40 }),
      mac: fc.integer({ min: 0, max: 60 }),
    }),
  );

  it('keeps its owner, address and MAC indexes consistent with a plain model', () => {
    fc.assert(
      fc.property(fc.array(cmd, { maxLength: 300 }), (cmds) => {
        const store = new LeaseStore();
        type M = { sid: number; v4?: number; v6?: bigint; mac: number };
        const model = new Map<string, M>();
        const taken4 = (sid: number, ip: number) => [...model.values()].some((m) => m.sid === sid && m.v4 === ip);
        const taken6 = (sid: number, ip: bigint) => [...model.values()].some((m) => m.sid === sid && m.v6 === ip);
        const takenMac = (mac: number) => [...model.values()].some((m) => m.mac === mac);
        for (const c of cmds) {
          const owner = `o${c.owner}`;
          const m = model.get(owner);
          const slot = store.slotOf(owner);
          expect(slot >= 0).toBe(m !== undefined);
          // The store trusts its caller to keep keys unique: only issue valid commands.
          if (c.k === 'add' && !m && !taken4(c.sid, c.ip) && !takenMac(0x020000000000 + c.mac)) {
            store.add(owner, c.sid, c.ip, undefined, 0x020000000000 + c.mac);
            model.set(owner, { sid: c.sid, v4: c.ip, mac: 0x020000000000 + c.mac });
          } else if (c.k === 'remove' && m) {
            store.remove(slot);
            model.delete(owner);
          } else if (c.k === 'setV4' && m && (c.ip === null || !taken4(m.sid, c.ip))) {
            store.setV4(slot, c.ip ?? undefined);
            m.v4 = c.ip ?? undefined;
          } else if (c.k === 'setV6' && m && (c.ip === null || !taken6(m.sid, BigInt(c.ip)))) {
            store.setV6(slot, c.ip === null ? undefined : BigInt(c.ip));
            m.v6 = c.ip === null ? undefined : BigInt(c.ip);
          } else if (c.k === 'setMac' && m && !takenMac(0x020000000000 + c.mac)) {
            store.setMac(slot, 0x020000000000 + c.mac);
            m.mac = 0x020000000000 + c.mac;
          }
        }
        expect(store.size).toBe(model.size);
        expect(
          store
            .slots()
            .map((s) => store.ownerOf(s))
            .sort(),
        ).toEqual([...model.keys()].sort());
        for (const [owner, m] of model) {
          const s = store.slotOf(owner);
          expect(store.sidOf(s)).toBe(m.sid);
          expect(store.v4Of(s)).toBe(m.v4);
          expect(store.v6Of(s)).toBe(m.v6);
          expect(store.macOf(s)).toBe(m.mac);
          if (m.v4 !== undefined) expect(store.holder4(m.sid, m.v4)).toBe(s);
          if (m.v6 !== undefined) expect(store.holder6(m.sid, m.v6)).toBe(s);
          expect(store.holderMac(m.mac)).toBe(s);
        }
        for (let ip = 0; ip <= 60; ip++)
          for (let sid = 0; sid <= 2; sid++) expect(store.holder4(sid, ip) >= 0).toBe(taken4(sid, ip));
      }),
      fcParams(150),
    );
  });

  it('grows its columns past the initial capacity', () => {
    const store = new LeaseStore();
    for (let i = 0; i < 5000; i++) store.add(`p${i}`, 0, i, undefined, 0x020000000000 + i);
    expect(store.size).toBe(5000);
    expect(store.holder4(0, 4321)).toBe(store.slotOf('p4321'));
    expect(store.v4Of(store.slotOf('p4999'))).toBe(4999);
  });
});
