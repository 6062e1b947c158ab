import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of our own packages, not their build output.
    alias: {
      '@outpost/shared': here('./shared/src/index.ts'),
      // `// @vitest-environment dashboard-dom` (a docblock names an environment, never a path): jsdom, with the
      // modules transformed for Node, so a test runs the dashboard's screens beside a real server in its process
      'vitest-environment-dashboard-dom': here('./control-plane/test/web/dashboard-dom-environment.ts'),
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
