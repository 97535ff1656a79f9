import { defineConfig } from 'vitest/config';

/**
 * The latency tests (`*.load.test.ts`): a whoami bound while a policy or a tenant floods the
 * server, the fairness check, heavy requests beside light ones. They measure the machine as
 * much as the code, so they run after the rest of the suite, one file at a time, with nothing
 * else loading the cores (`pnpm test` runs this config second). Otherwise as vitest.config.ts.
 */
const conditions = ['keyhold-source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['{packages,adapters,conformance,examples}/**/src/**/*.load.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
