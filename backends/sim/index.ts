/**
 * backends/sim: the in-process packet simulator behind the same `Backend`
 * interface as real OVN, plus probing and tracing.
 */
export * from './sim-backend.ts';
