import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of our own packages, not their build output.
    alias: {
      '@outpost/shared': here('./shared/src/index.ts'),
    },
  },
  test: {
    include: [
      'shared/test/**/*.test.ts',
      'agent/test/**/*.test.ts',
      'control-plane/test/**/*.test.ts',
      'test/integration/**/*.test.ts',
      'images/test/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
