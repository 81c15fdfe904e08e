import { describe, expect, it } from 'vitest';
import { runCniPluginBench } from './cni-plugin.ts';

describe('kovn bench cni-plugin', () => {
  it('reports VERSION figures of the bundled plugin (measured, not judged)', async () => {
    const r = await runCniPluginBench({ runs: 3, cliRuns: 0 });
    expect(r.name).toBe('cni-plugin');
    expect(r.params).toMatchObject({ runs: 3, cli_runs: 0 });
    for (const k of ['version_p50_ms', 'version_p99_ms', 'version_min_ms', 'version_max_ms'] as const)
      expect(r.metrics[k]).toBeGreaterThan(0);
    expect(r.metrics.version_min_ms).toBeLessThanOrEqual(r.metrics.version_p50_ms);
    expect(r.metrics).not.toHaveProperty('cli_version_p50_ms');
  });
});
