import { defineConfig } from 'vitest/config';

// Tests import workspace packages through the `keyhold-source` export condition, so they run
// against the TypeScript sources with no build step.
// Vite's default server conditions, with ours first.
const conditions = ['keyhold-source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['{packages,adapters,conformance,examples}/**/src/**/*.test.ts'],
    // Latency tests (`*.load.test.ts`) run afterwards, one file at a time, on a machine no
    // other test file is loading: vitest.load.config.ts.
    exclude: ['**/node_modules/**', '**/dist/**', '**/*.load.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
