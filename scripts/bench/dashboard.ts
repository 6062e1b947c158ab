/**
 * Benchmark: the dashboard at 100,000 devices, in Debian's Chromium (playwright-core, as its browser tests).
 *
 * Starts the built control plane (control-plane/dist, with the bundled dashboard) with a fresh SQLite file in a
 * temporary folder, writes 100,000 devices (5,000 per transaction, each with a running OS version of 10, an
 * OSReady reason, labels and one in ten online), signs in, and measures on a fresh page load of the device list
 * of every region (`#devices?parent=projects/bench/regions/-`), 5 loads after a warm-up:
 *   first_rows_p50_ms / first_rows_max_ms  from navigation to the first 50 rows drawn (goal < 1000 ms), as the
 *                                          page marks it (performance.mark 'outpost:first-rows', page time)
 *   counts_complete_p50_ms                 from navigation to the fleet overview showing all 100,000 devices'
 *                                          counts (the server counts them: devices:counts)
 *   overview_counts_bytes                  the body of the overview's devices:counts answer, what a visit downloads
 *                                          for the counts (its stateless watch resumes from the counts' token and
 *                                          sends no snapshot: only changes, none here)
 * and the size of the JavaScript a first visit loads:
 *   initial_js_gzip_kb                     app.js and the chunks it imports statically, gzipped (goal <= 150)
 *
 * Output: one JSON line per figure on stdout; progress on stderr. Exits 0 when it ran, 1 when it could not run.
 *   npm run build && npx tsx scripts/bench/dashboard.ts
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { parseBenchFlags } from './lib/bench-flags.js';
import { REPO_ROOT, requireBuiltPackages } from './lib/preflight.js';
import { createReporter } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { withTempDir } from './lib/temp-dir.js';
import { exitAfter } from './lib/time.js';

const DEVICES = 100_000;
const INSERT_BATCH = 5_000;
const LOADS = 5;
const CHROMIUM = process.env['OUTPOST_TEST_CHROMIUM'] ?? '/usr/bin/chromium';
const PARENT = 'projects/bench/regions/-';
const ASSETS = join(REPO_ROOT, 'control-plane', 'dist', 'web', 'assets');

parseBenchFlags({
  script: 'dashboard.ts',
  summary:
    "The dashboard at 100,000 devices in Debian's Chromium: first rows and fleet counts on a fresh load, and the " +
    'JavaScript a first visit loads. One JSON line per figure on stdout, progress on stderr.',
  flags: {},
  notes: 'Environment: OUTPOST_TEST_CHROMIUM, the Chromium to run (default /usr/bin/chromium).',
});
const out = createReporter('dashboard');
exitAfter(10 * 60_000, 1, 'the dashboard benchmark took more than 10 minutes');
requireBuiltPackages(['shared', 'control-plane']);
if (!existsSync(CHROMIUM)) {
  process.stderr.write(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set OUTPOST_TEST_CHROMIUM)\n`);
  process.exit(1);
}

out.figure('initial_js_gzip_kb', initialJavaScriptBytes() / 1024, { goal: '<=150', unit: 'KiB' });

const { startBenchServer } = await import('./lib/bench-server.js');
await withTempDir('outpost-bench-dashboard-', async (dir) => {
  const server = await startBenchServer(dir);
  try {
    insertDevices(server.engine);
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-quic',
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      page.setDefaultTimeout(120_000);
      await page.goto(`${server.url}/`);
      await page.getByLabel('API key').fill(server.apiKey);
      await page.getByLabel('API key').press('Enter');
      await page.getByRole('button', { name: 'Forget API key' }).waitFor();
      const firstRows: number[] = [];
      const countsComplete: number[] = [];
      /** the counts requests the page made (the overview's download, besides its watch's headers) */
      const countsPaths = new Set<string>();
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname.endsWith('/devices:counts')) countsPaths.add(url.pathname + url.search);
      });
      for (let load = 0; load <= LOADS; load++) {
        await page.goto('about:blank');
        const started = performance.now();
        await page.goto(`${server.url}/#devices?parent=${encodeURIComponent(PARENT)}`);
        await page.locator('table.devices tbody tr[data-device]').nth(49).waitFor();
        const seen = performance.now() - started;
        await page.locator('.overview h3', { hasText: `Connection (${DEVICES})` }).waitFor();
        const counts = performance.now() - started;
        // when the page drew them (its main thread may be busy counting before Playwright looks)
        const drawn = await page.evaluate(() => performance.getEntriesByName('outpost:first-rows')[0]?.startTime ?? -1);
        if (drawn < 0) throw new Error('the device list did not mark its first rows');
        if (load === 0) continue; // warm-up
        firstRows.push(drawn);
        countsComplete.push(counts);
        out.progress(
          `load ${load}: first rows drawn at ${drawn.toFixed(0)} ms (seen by the test at ${seen.toFixed(0)} ms), counts ${counts.toFixed(0)} ms`,
        );
      }
      const rows = summarize(firstRows);
      out.figure('first_rows_p50_ms', rows.p50, { goal: '<1000', unit: 'ms', samples: LOADS });
      out.figure('first_rows_max_ms', rows.max, { unit: 'ms', samples: LOADS });
      out.figure('counts_complete_p50_ms', summarize(countsComplete).p50, { unit: 'ms', samples: LOADS });
      out.figure('overview_counts_bytes', await countsAnswerBytes(server.url, server.apiKey, countsPaths), {
        unit: 'bytes',
      });
    } finally {
      await browser.close();
    }
  } finally {
    await server.close();
  }
});
process.exit(0);

/** The length of the answer to the counts request the page made (one path: every load asks the same). */
async function countsAnswerBytes(url: string, apiKey: string, paths: ReadonlySet<string>): Promise<number> {
  if (paths.size !== 1) throw new Error(`expected one counts request, the page made: ${[...paths].join(', ')}`);
  const answer = await fetch(`${url}${[...paths][0]}`, { headers: { authorization: `Bearer ${apiKey}` } });
  if (!answer.ok) throw new Error(`the counts request answered ${answer.status}`);
  return Buffer.byteLength(await answer.text());
}

function insertDevices(engine: {
  transaction(fn: () => void): void;
  resource(plural: string): { put(doc: object): unknown };
}): void {
  const devices = engine.resource('devices');
  const started = performance.now();
  const since = new Date().toISOString();
  for (let first = 0; first < DEVICES; first += INSERT_BATCH) {
    engine.transaction(() => {
      for (let i = first; i < Math.min(first + INSERT_BATCH, DEVICES); i++) {
        devices.put({
          name: `projects/bench/regions/r${i % 4}/devices/d-${String(i).padStart(6, '0')}`,
          metadata: { labels: { zone: `zone-${i % 10}`, tier: i % 3 === 0 ? 'gold' : 'silver' } },
          spec: { osVersion: `1.${i % 10}.0` },
          status: {
            connectionStatus: i % 10 === 0 ? 'CONNECTED' : 'DISCONNECTED',
            deviceInfo: { osVersion: `1.${(i + 1) % 10}.0` },
            conditions: [
              {
                type: 'OSReady',
                status: 'True',
                reason: i % 50 === 0 ? 'Pending' : 'Converged',
                message: '',
                lastTransitionTime: since,
              },
              {
                type: 'Healthy/web',
                status: i % 100 === 7 ? 'False' : 'True',
                reason: i % 100 === 7 ? 'Failing' : 'Passing',
                message: '',
                lastTransitionTime: since,
              },
            ],
          },
        });
      }
    });
  }
  out.progress(`inserted ${DEVICES} devices in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Bytes of app.js and the chunks it imports statically, each gzipped. */
function initialJavaScriptBytes(): number {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(ASSETS, file), 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*"(\.\.?\/[^"]+)"/g)) visit(join(dirname(file), m[1] ?? ''));
  };
  visit('app.js');
  return [...seen].reduce((sum, file) => sum + gzipSync(readFileSync(join(ASSETS, file))).length, 0);
}
