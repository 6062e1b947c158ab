import { defineConfig } from 'vitest/config';

// The image tooling's own tests (npx vitest run --config images/vitest.config.ts).
export default defineConfig({
  test: {
    include: ['images/test/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'forks',
  },
});
