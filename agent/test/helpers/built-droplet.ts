import { fileURLToPath } from 'node:url';
import { requireFreshBuild } from './build-freshness.js';

const bundle = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/**
 * The built droplet command (agent/dist/main.js), which tests run as a child process: it starts in a fraction of
 * the time the TypeScript sources take through tsx, and is what installations run. Throws when the bundle is missing
 * or older than a source file, so that a test run after an edit never checks a stale bundle.
 */
export function builtDroplet(): string {
  return requireFreshBuild(bundle);
}
