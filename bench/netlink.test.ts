import { describe, expect, it } from 'vitest';
import { requireNetns } from '../node/netlink/testing.ts';
import { runNetlinkBench } from './netlink.ts';

describe.skipIf(!requireNetns('bench netlink'))('bench netlink', () => {
  it('reports every figure for a few pods (the figures are measured, never asserted)', async () => {
    const report = await runNetlinkBench({ pods: 3 });
    expect(report.params).toEqual({ pods: 3, txChecksumOff: false });
    for (const [k, v] of Object.entries(report.metrics)) expect(Number.isFinite(v) && v > 0, k).toBe(true);
  });
});
