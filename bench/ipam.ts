/**
 * `kovn bench ipam`: IPAM throughput and memory. Measures and reports; never
 * fails on a figure. Targets (issue 2): >= 2,000,000 allocations/s, restore
 * of 150k allocations < 300 ms, < 100 bytes of heap per allocated IP.
 * Kube-OVN's anchor: IPAM init of 10,000 pods took 29 s (kubeovn/kube-ovn#1498).
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { formatIPv4, formatMAC } from '../model/addr/index.ts';
import { type AllocationRecord, IPAM, seededRandomBytes } from '../model/ipam/index.ts';

export type IpamBenchParams = {
  /** Allocations per timed run (default 60,000: fits a /16). */
  readonly allocations?: number;
  /** Records in the restore run (default 150,000, across 200 subnets). */
  readonly restoreRecords?: number;
  /** Timed runs per figure; the median is reported (default 5). */
  readonly rounds?: number;
};

export type IpamBenchReport = {
  name: 'ipam';
  params: Record<string, unknown>;
  metrics: {
    alloc_per_s: number;
    alloc_per_s_slash8: number;
    release_per_s: number;
    restore_150k_ms: number;
    bytes_per_ip: number;
  };
};

const SUBNETS = 200;
const MIN_MEMORY_RUN = 20_000;

export async function runIpamBench(params: IpamBenchParams = {}): Promise<IpamBenchReport> {
  const n = Math.max(1, Math.min(params.allocations ?? 60_000, 65_000));
  const restoreN = Math.max(SUBNETS, params.restoreRecords ?? 150_000);
  const rounds = Math.max(1, params.rounds ?? 5);
  const owners = Array.from({ length: n }, (_, i) => `pod-${i}.bench`);
  const progress = (msg: string) => process.stderr.write(`bench ipam: ${msg}\n`);

  // Memory first, while the heap holds nothing but the owner names; one untimed run compiles the code.
  // At least 20,000 addresses, so that a tiny run still rises well above GC noise.
  progress('heap bytes per allocated IP');
  const memOwners = n >= MIN_MEMORY_RUN ? owners : Array.from({ length: MIN_MEMORY_RUN }, (_, i) => `pod-${i}.bench`);
  allocRun('10.0.0.0/8', memOwners);
  const bytes = median(repeat(3, () => bytesPerIp(memOwners)));
  progress(`${n} allocations per run, ${rounds} runs per figure (after one warm-up run)`);
  const slash16 = median(repeat(rounds + 1, () => allocRun('10.16.0.0/16', owners)).slice(1));
  const slash8 = median(repeat(rounds + 1, () => allocRun('10.0.0.0/8', owners)).slice(1));
  const release = median(repeat(rounds + 1, () => releaseRun(owners)).slice(1));
  progress(`restore of ${restoreN} records across ${SUBNETS} subnets`);
  const records = restoreRecords(restoreN);
  const restoreMs = median(repeat(rounds + 1, () => restoreRun(records)).slice(1));
  await Promise.resolve();
  return {
    name: 'ipam',
    params: {
      allocations: n,
      memory_allocations: memOwners.length,
      restore_records: restoreN,
      restore_subnets: SUBNETS,
      rounds,
    },
    metrics: {
      alloc_per_s: Math.round(slash16),
      alloc_per_s_slash8: Math.round(slash8),
      release_per_s: Math.round(release),
      restore_150k_ms: round2(restoreMs),
      bytes_per_ip: round2(bytes),
    },
  };
}

function newIpam(cidrBlock: string): IPAM {
  const ipam = new IPAM({ random: seededRandomBytes(7) });
  const r = ipam.setSubnet({ name: 'bench', cidrBlock });
  if (!r.ok) throw new Error(`bench ipam: subnet ${cidrBlock}: ${r.issues.map((i) => i.message).join('; ')}`);
  return ipam;
}

function fill(ipam: IPAM, owners: readonly string[]): void {
  for (const owner of owners) {
    const r = ipam.allocate({ subnet: 'bench', owner });
    if (!r.ok) throw r.error;
  }
}

/** Allocations per second into an empty subnet. */
function allocRun(cidrBlock: string, owners: readonly string[]): number {
  const ipam = newIpam(cidrBlock);
  const t0 = performance.now();
  fill(ipam, owners);
  return owners.length / ((performance.now() - t0) / 1000);
}

/** Releases per second, in a shuffled order (pods die in any order), from a full subnet. */
function releaseRun(owners: readonly string[]): number {
  const ipam = newIpam('10.16.0.0/16');
  fill(ipam, owners);
  const order = shuffled(owners);
  const t0 = performance.now();
  for (const owner of order)
    if (ipam.release(owner) === undefined) throw new Error(`bench ipam: ${owner} had no lease`);
  return owners.length / ((performance.now() - t0) / 1000);
}

function restoreRecords(total: number): AllocationRecord[] {
  const out: AllocationRecord[] = [];
  const per = Math.ceil(total / SUBNETS);
  for (let s = 0; s < SUBNETS && out.length < total; s++) {
    for (let i = 0; i < per && out.length < total; i++) {
      const ip = (10 << 24) + (s << 16) + 2 + i;
      out.push({
        owner: `pod-${s}-${i}.bench`,
        subnet: `subnet-${s}`,
        ips: [formatIPv4(ip)],
        mac: formatMAC(0x0a5800000000 + out.length),
      });
    }
  }
  return out;
}

function restoreRun(records: readonly AllocationRecord[]): number {
  const ipam = new IPAM({ random: seededRandomBytes(7) });
  for (let s = 0; s < SUBNETS; s++) ipam.setSubnet({ name: `subnet-${s}`, cidrBlock: `10.${s}.0.0/16` });
  const t0 = performance.now();
  const issues = ipam.restore(records);
  const ms = performance.now() - t0;
  if (issues.length > 0 || ipam.size !== records.length)
    throw new Error(`bench ipam: restore reported ${issues.length} issues`);
  return ms;
}

/** Heap growth (JS heap plus typed-array buffers) per allocated address, after full GCs. */
function bytesPerIp(owners: readonly string[]): number {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const used = () => {
    gc();
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  // The empty IPAM (its initial column and table capacity) is part of the baseline: we count what allocations add.
  const ipam = newIpam('10.0.0.0/8');
  const before = used();
  fill(ipam, owners);
  const after = used();
  if (ipam.size !== owners.length) throw new Error('bench ipam: lost leases');
  return (after - before) / owners.length;
}

function repeat<T>(times: number, f: () => T): T[] {
  return Array.from({ length: times }, f);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** A deterministic Fisher-Yates shuffle (bench runs are reproducible). */
function shuffled<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  let s = 12345;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
