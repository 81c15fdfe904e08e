import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isStaticElf, runName } from './support.ts';

/** A minimal ELF64 header with program headers of the given types. */
function elf(types: readonly number[]): Uint8Array {
  const b = Buffer.alloc(64 + 56 * types.length);
  b.writeUInt32BE(0x7f454c46, 0);
  b[4] = 2;
  b.writeBigUInt64LE(64n, 32);
  b.writeUInt16LE(56, 54);
  b.writeUInt16LE(types.length, 56);
  types.forEach((t, i) => b.writeUInt32LE(t, 64 + 56 * i));
  return b;
}

describe('isStaticElf', () => {
  it('a program header of type PT_INTERP (3) makes it dynamic', () => {
    expect(isStaticElf(elf([6, 3, 1]))).toBe(false);
    expect(isStaticElf(elf([1, 1, 4]))).toBe(true);
  });
  it('what is not an ELF64 file is not a static busybox', () => {
    expect(isStaticElf(new TextEncoder().encode('#!/bin/sh\necho hi\n'.padEnd(80)))).toBe(false);
  });
  it('the system ls is dynamic', () => {
    expect(isStaticElf(readFileSync('/bin/ls'))).toBe(false);
  });
});

describe('runName', () => {
  it('fits an interface name and differs per call', () => {
    const a = runName('kpm');
    const b = runName('kpm');
    expect(a).not.toBe(b);
    expect(a.length).toBeLessThanOrEqual(15);
  });
});
