import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

/** `npm run test:e2e`: the QEMU end-to-end suite (test/e2e), one VM at a time. */
export default defineConfig({
  resolve: {
    alias: { '@outpost/shared': here('./shared/src/index.ts') },
  },
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    // TCG on a 2-core machine: one VM at a time, and generous limits (the harness's own waits fail first,
    // with the serial console)
    fileParallelism: false,
    testTimeout: 20 * 60_000,
    hookTimeout: 5 * 60_000,
    pool: 'forks',
    reporters: ['verbose'],
  },
});
