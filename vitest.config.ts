import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{model,sim,backends,controller,node,scenarios,bench,cli,test}/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Tests that start real OVN processes use temp dirs of their own; files run in parallel.
    pool: 'forks',
  },
});
