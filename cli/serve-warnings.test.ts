/**
 * `kovn sim serve` tells at start what of its files kovn does not act on
 * (as `sim run` tells it with its answer), instead of serving them silently.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from './serve.ts';

const dir = mkdtempSync(join(tmpdir(), 'kovn-serve-warn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kovn sim serve and what it does not act on', () => {
  it('logs a kind it does not act on, naming the object', async () => {
    const file = join(dir, 'router-lb.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: kubeovn.io/v1',
        'kind: RouterLBRule',
        'metadata: {name: reserved}',
        "spec: {vpc: ovn-cluster, vips: ['10.16.0.99']}",
        '---',
        'apiVersion: v1',
        'kind: Pod',
        'metadata: {name: web, namespace: default}',
        'spec: {containers: [{name: c, image: nginx}]}',
        '',
      ].join('\n'),
    );
    const lines: string[] = [];
    const s = await startServe({ files: [file], port: 0, controller: false, seed: 1, log: (l) => lines.push(l) });
    await s.close();
    const told = lines.filter((l) => l.startsWith('not acted on:'));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/RouterLBRule/);
    expect(told[0]).toMatch(/reserved/);
  });
});
