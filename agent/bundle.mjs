/**
 * Bundles the droplet agent after tsc has checked it: src/main.ts and everything it imports (our code,
 * @outpost/shared as built in shared/dist, the npm packages) become dist/main.js, replacing tsc's, plus
 * dist/chunks/ for what is imported on demand (the agent proper after main.ts has set V8's flags, file transfer,
 * the debug bundle, execa, ...), and dist/inventory-collector.js, the inventory collector's own program. `npm run build` runs it; dist/main.js is what the droplet command and every
 * installation run.
 *
 * Why: an idle agent is mostly the code it loaded. One tree-shaken, minified program instead of ~500 modules
 * saves the module records and most of the source text, and the chunks keep the rarely used libraries (and
 * the Node built-ins they pull in) out of memory until they are needed. See scripts/bench/agent-idle.ts.
 */
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { nodeCronLocalTime } from './node-cron-local-time.mjs';

const agent = dirname(fileURLToPath(import.meta.url));
const dist = join(agent, 'dist');

/**
 * zod's `z` (and `z.core`) re-export `locales`, the error messages of ~50 languages (~300 KB, a third of the agent's main
 * chunk), and a namespace re-export cannot be tree-shaken. The agent only ever speaks English, which zod's schemas
 * import on their own (zod/v4/locales/en.js), so the bundle resolves the `locales` namespace to an empty module.
 */
/**
 * esbuild keeps every module the agent reaches through @outpost/shared's index whose top level calls a function,
 * and nearly all of shared's do: its zod schemas (`z.object(...)`). Without this the agent built, at every start,
 * the schemas of resources only the control plane serves. Shared's modules only declare (no registries, no globals),
 * so they are marked free of side effects: a module none of whose exports the agent uses is left out.
 */
const sharedDist = join(agent, '..', 'shared', 'dist');
const RESOLVING = Symbol('resolving');
const sharedWithoutSideEffects = {
  name: 'shared-without-side-effects',
  setup(bundle) {
    bundle.onResolve({ filter: /.*/ }, async ({ path, importer, kind, resolveDir, pluginData }) => {
      if (pluginData === RESOLVING) return undefined;
      if (path !== '@outpost/shared' && !importer.startsWith(sharedDist)) return undefined;
      const resolved = await bundle.resolve(path, { importer, kind, resolveDir, pluginData: RESOLVING });
      if (resolved.errors.length > 0 || !resolved.path.startsWith(sharedDist)) return undefined;
      return { path: resolved.path, namespace: resolved.namespace, sideEffects: false };
    });
  },
};

const zodWithoutLocales = {
  name: 'zod-without-locales',
  setup(bundle) {
    bundle.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ importer }) =>
      /[\\/]zod[\\/]v4[\\/](classic[\\/]external|core[\\/]index)\.js$/.test(importer)
        ? { path: 'zod-locales', namespace: 'zod-without-locales' }
        : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'zod-without-locales' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

await rm(join(dist, 'chunks'), { recursive: true, force: true });
await build({
  // the inventory collector is a program of its own: a short-lived child process that loads systeminformation,
  // so the library never enters the agent's memory (src/metrics/inventory/collect-inventory.ts)
  entryPoints: {
    main: join(agent, 'src', 'main.ts'),
    'inventory-collector': join(agent, 'src', 'metrics', 'inventory', 'collector-main.ts'),
  },
  outdir: dist,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // whitespace and syntax only: names stay readable in the stack traces the agent logs
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  banner: {
    js: [
      // the CommonJS packages (ws, pino, commander, ...) require Node's built-ins
      "import { createRequire as __dropletCreateRequire } from 'node:module';",
      'const require = __dropletCreateRequire(import.meta.url);',
    ].join('\n'),
  },
  // a native addon (its .node file is loaded from its package at run time): installed beside the agent
  external: ['node-pty'],
  // nodeCronLocalTime: node-cron reads the system zone's clock without Intl (~5 MiB of ICU data), see its file
  plugins: [sharedWithoutSideEffects, zodWithoutLocales, nodeCronLocalTime],
  logLevel: 'warning',
});
