import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fcParams } from '../../../test/fc.ts';
import { formatRemote, parseRemote, parseRemotes, type Remote } from './transport.ts';
import { OvsdbRemoteError } from './wire/errors.ts';

describe('remotes', () => {
  it('parses the forms ovn-nbctl takes', () => {
    expect(parseRemote('unix:/run/ovn/ovnnb_db.sock')).toEqual({ kind: 'unix', path: '/run/ovn/ovnnb_db.sock' });
    expect(parseRemote('tcp:127.0.0.1:6641')).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 6641 });
    expect(parseRemote('tcp:[::1]:6641')).toEqual({ kind: 'tcp', host: '::1', port: 6641 });
    expect(parseRemote('ssl:[fd00::1]')).toEqual({ kind: 'ssl', host: 'fd00::1', port: 6640 });
    expect(parseRemote('ssl:ovn-central.kube-system:6641')).toEqual({
      kind: 'ssl',
      host: 'ovn-central.kube-system',
      port: 6641,
    });
    expect(parseRemote('tcp:10.0.0.1')).toEqual({ kind: 'tcp', host: '10.0.0.1', port: 6640 });
  });
  it('parses comma-separated cluster lists', () => {
    expect(parseRemotes('tcp:10.0.0.1:6641,tcp:10.0.0.2:6641, ssl:[::1]:6641').map(formatRemote)).toEqual([
      'tcp:10.0.0.1:6641',
      'tcp:10.0.0.2:6641',
      'ssl:[::1]:6641',
    ]);
  });
  it.each([
    'tcp:::1:6641',
    'tcp:[::1',
    'tcp:[nope]:1',
    'tcp:1.2.3.4:0',
    'tcp:1.2.3.4:65536',
    'tcp:1.2.3.4:x',
    'tcp:300.1.1.1:6641',
    'unix:',
    'ptcp:6641',
    'punix:/tmp/x',
    'http://x',
    '/tmp/nb.sock',
    'tcp:',
  ])('rejects %j with OvsdbRemoteError naming it', (text) => {
    expect(() => parseRemote(text)).toThrow(OvsdbRemoteError);
    expect(() => parseRemote(text)).toThrow(JSON.stringify(text));
  });
  it('rejects empty list entries', () => {
    expect(() => parseRemotes('tcp:1.2.3.4:1,,tcp:1.2.3.5:1')).toThrow(OvsdbRemoteError);
  });
  it('format/parse round trip', () => {
    const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
    const v6 = fc.ipV6().filter((a) => !a.includes('.'));
    const remote: fc.Arbitrary<Remote> = fc.oneof(
      fc.stringMatching(/^\/[a-z0-9/._-]{1,30}$/).map((path) => ({ kind: 'unix' as const, path })),
      fc.record({
        kind: fc.constantFrom('tcp' as const, 'ssl' as const),
        host: fc.oneof(v4, v6),
        port: fc.integer({ min: 1, max: 65535 }),
      }),
    );
    fc.assert(
      fc.property(fc.array(remote, { minLength: 1, maxLength: 4 }), (rs) => {
        expect(parseRemotes(rs.map(formatRemote).join(','))).toEqual(rs);
      }),
      fcParams(300),
    );
  });
});
