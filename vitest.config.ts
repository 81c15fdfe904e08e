import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Every layer's tests (test/layers.test.ts checks that each layer folder is listed here and in tsconfig.json).
    include: ['{model,sim,backends,kube,controller,node,verify,scenarios,bench,cli,test}/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Tests that start real OVN processes use temp dirs of their own; files run in parallel.
    pool: 'forks',
  },
});
