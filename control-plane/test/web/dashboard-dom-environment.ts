/**
 * vitest's jsdom environment (the document, window and their globals are jsdom's), with the modules transformed
 * as for Node ("ssr"), as in the node environment: the control plane and droplet a test starts in the same
 * process then run as they do under Node (`import.meta.url` is their file, for one), while the dashboard's
 * browser modules the test imports run against the jsdom document. Named by a test file as
 * `// @vitest-environment dashboard-dom` (vitest.config.ts maps that name to this file).
 */
import { builtinEnvironments } from 'vitest/runtime';
import type { Environment } from 'vitest/runtime';

const environment: Environment = { ...builtinEnvironments.jsdom, name: 'dashboard-dom', viteEnvironment: 'ssr' };
export default environment;
