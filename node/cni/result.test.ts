import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../test/fc.ts';
import { type CniResult, SUPPORTED_CNI_VERSIONS } from './protocol.ts';
import { chainResult, decodeResult, encodeResult, isCidr } from './result.ts';

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join('.'));
const v6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((g) => g.map((x) => x.toString(16)).join(':'));
const cidr = fc.oneof(
  fc.tuple(v4, fc.nat(32)).map(([a, p]) => `${a}/${p}`),
  fc.tuple(v6, fc.nat(128)).map(([a, p]) => `${a}/${p}`),
);
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const word = fc.stringMatching(/^[a-z0-9]{1,8}$/);

/** Results in the 1.1 shape, every optional field sometimes absent. */
const result: fc.Arbitrary<CniResult> = fc
  .array(
    fc.record(
      {
        name: word,
        mac: opt(word),
        mtu: opt(fc.nat(9000)),
        sandbox: opt(word),
        socketPath: opt(word),
        pciID: opt(word),
      },
      { requiredKeys: ['name'] },
    ),
    { maxLength: 3 },
  )
  .chain((interfaces) =>
    fc.record(
      {
        cniVersion: fc.constant('1.1.0'),
        interfaces: fc.constant(interfaces),
        ips: fc.array(
          fc.record(
            {
              address: cidr,
              gateway: opt(fc.oneof(v4, v6)),
              interface: interfaces.length > 0 ? opt(fc.nat(interfaces.length - 1)) : fc.constant(undefined),
            },
            { requiredKeys: ['address'] },
          ),
          { maxLength: 3 },
        ),
        routes: fc.array(
          fc.record(
            {
              dst: cidr,
              gw: opt(v4),
              mtu: opt(fc.nat(9000)),
              advmss: opt(fc.nat(9000)),
              priority: opt(fc.nat(100)),
              table: opt(fc.nat(255)),
              scope: opt(fc.constantFrom(0, 253, 254)),
            },
            { requiredKeys: ['dst'] },
          ),
          { maxLength: 3 },
        ),
        dns: opt(
          fc.record({ nameservers: opt(fc.array(v4, { maxLength: 2 })), domain: opt(word) }, { requiredKeys: [] }),
        ),
      },
      { requiredKeys: ['cniVersion', 'interfaces', 'ips', 'routes'] },
    ),
  )
  .map((r) => JSON.parse(JSON.stringify(r)) as CniResult);

/** What a version's result keeps of a 1.1 result. */
function restrict(r: CniResult, version: string): CniResult {
  if (version === '1.1.0') return { ...r, cniVersion: version };
  const strip = <T extends object>(o: T, keep: readonly string[]) =>
    Object.fromEntries(Object.entries(o).filter(([k]) => keep.includes(k))) as T;
  return JSON.parse(
    JSON.stringify({
      ...r,
      cniVersion: version,
      interfaces: r.interfaces?.map((i) => strip(i, ['name', 'mac', 'sandbox'])),
      routes: r.routes?.map((x) => strip(x, ['dst', 'gw'])),
    }),
  );
}

describe('CNI results across versions', () => {
  it('encode then decode gives back what the version can say, for every supported version', () => {
    fc.assert(
      fc.property(result, fc.constantFrom(...SUPPORTED_CNI_VERSIONS), (r, v) => {
        const json = encodeResult(r, v);
        const back = decodeResult(JSON.parse(JSON.stringify(json)), v, 'r');
        expect(back).toEqual({ ok: true, value: restrict(r, v) });
      }),
      fcParams(200),
    );
  });

  it('0.3.x/0.4.0 results carry ips[].version by address family; 1.x results do not', () => {
    fc.assert(
      fc.property(result, fc.constantFrom(...SUPPORTED_CNI_VERSIONS), (r, v) => {
        const ips = encodeResult(r, v).ips as { version?: string; address: string }[];
        for (const ip of ips)
          expect(ip.version).toBe(v.startsWith('0.') ? (ip.address.includes(':') ? '6' : '4') : undefined);
      }),
      fcParams(100),
    );
  });

  it('chaining keeps the previous result first and points ips at the same interfaces by name', () => {
    fc.assert(
      fc.property(result, result, (prev, own) => {
        const c = chainResult(prev, own);
        expect(c.interfaces?.slice(0, prev.interfaces?.length ?? 0)).toEqual(prev.interfaces);
        expect(c.ips?.length).toBe((prev.ips?.length ?? 0) + (own.ips?.length ?? 0));
        const ownIps = c.ips?.slice(prev.ips?.length ?? 0) ?? [];
        for (const [i, ip] of ownIps.entries()) {
          const was = own.ips?.[i]?.interface;
          expect(ip.interface === undefined ? undefined : c.interfaces?.[ip.interface]?.name).toBe(
            was === undefined ? undefined : own.interfaces?.[was]?.name,
          );
        }
      }),
      fcParams(100),
    );
  });

  it('decoding names the first bad field', () => {
    const bad = (json: unknown) => {
      const r = decodeResult(json, '1.0.0', 'config.prevResult');
      return r.ok ? undefined : r.problem.path;
    };
    expect(bad('x')).toBe('config.prevResult');
    expect(bad({ interfaces: [{}] })).toBe('config.prevResult.interfaces[0].name');
    expect(bad({ interfaces: [], ips: [{ address: '10.0.0.1/24', interface: 0 }] })).toBe(
      'config.prevResult.ips[0].interface',
    );
    expect(bad({ routes: [{ dst: 'default' }] })).toBe('config.prevResult.routes[0].dst');
    expect(bad({ routes: [{ dst: '0.0.0.0/0', gw: '10.0.0' }] })).toBe('config.prevResult.routes[0].gw');
    expect(bad({ dns: { nameservers: '10.96.0.10' } })).toBe('config.prevResult.dns.nameservers');
    expect(bad({ ips: {} })).toBe('config.prevResult.ips');
  });

  it('isCidr takes an address with an in-range prefix only', () => {
    expect(['10.0.0.0/8', '0.0.0.0/0', '::/0', 'fd00::1/128'].map(isCidr)).toEqual([true, true, true, true]);
    expect(['10.0.0.0', '10.0.0.0/33', '::/129', 'x/8', '10.0.0.0/-1', '10.0.0.0/08x'].map(isCidr)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
