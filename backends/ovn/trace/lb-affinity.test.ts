import { describe, expect, it } from 'vitest';
import { affinityRetrace } from './lb-affinity.ts';

describe('affinityRetrace', () => {
  it('loads an IPv4 backend (and its port) into the registers the learned flow loads', () => {
    expect(affinityRetrace({ backend: '10.16.0.2:8080' })).toMatchObject({
      registers: 'reg9[6] == 1 && reg4 == 10.16.0.2 && reg8[0..15] == 8080',
    });
    const bare = affinityRetrace({ backend: '10.16.0.2' });
    expect(bare.registers).toBe('reg9[6] == 1 && reg4 == 10.16.0.2');
    expect(bare.lbBackend).toBeUndefined();
  });

  it('names an IPv6 backend with --lb-dst instead (xxreg0 does not survive a microflow)', () => {
    expect(affinityRetrace({ backend: '[fd00::a]:8080' })).toMatchObject({
      registers: 'reg9[6] == 1',
      lbBackend: '[fd00::a]:8080',
    });
  });
});
