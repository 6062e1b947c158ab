/**
 * Benchmark: writing an OS image into an A/B slot, as the droplet agent does it, against two baselines.
 *
 * A 512 MiB random image (signed with a fresh ed25519 key) is served by a node:http server on 127.0.0.1 and
 * written into a slot file in a temporary folder, three ways, each RUNS times (alternating; the output file is
 * deleted before every run; the median run is reported):
 *   1. agent: the agent's own path: downloadImage (HTTP with Range support, streaming into the slot while
 *      hashing, periodic fsync checkpoints, final fsync) + sha256 comparison + signature check against the
 *      trusted-key folder (agent/src/os/download, agent/src/os/trust).
 *   2. bare: a bare Node pipeline, nothing else: http.get → sha256 Transform → fs.createWriteStream, then one
 *      fsync (so that both write durably; without it the figure would measure the page cache).
 *   3. dd: `dd if=<image> of=<slot> bs=4M conv=fsync` (a local copy: no network, no hashing).
 *
 * Output: one JSON line per figure on stdout ({"bench","figure","value","goal"?,"met"?,...}):
 *   agent_mb_s, bare_pipeline_mb_s, dd_fsync_mb_s (MB = 10^6 bytes), agent_vs_bare_ratio (goal >= 0.9),
 *   agent_vs_dd_ratio. Progress on stderr. Exits 0 when it ran (a missed goal shows as "met": false).
 *
 * Run from the repository root:  npx tsx scripts/bench/slot-write.ts
 * (IMAGE_MIB=512 RUNS=5 by default; CHECKPOINT_MS overrides the agent's fsync checkpoint interval)
 */
import { createHash, generateKeyPairSync, randomFillSync, sign } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, get } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseBenchFlags } from './lib/bench-flags.js';
import { requireBuiltPackages } from './lib/preflight.js';
import { createReporter } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { withTempDir } from './lib/temp-dir.js';
import { exitAfter } from './lib/time.js';

const MiB = 1024 * 1024;
const IMAGE_BYTES = Number(process.env['IMAGE_MIB'] ?? 512) * MiB;
const RUNS = Number(process.env['RUNS'] ?? 5);
/** the agent's fsync checkpoint interval (its default unless set) */
const CHECKPOINT_MS = process.env['CHECKPOINT_MS'] === undefined ? undefined : Number(process.env['CHECKPOINT_MS']);
const TIME_LIMIT_MS = 15 * 60_000;

parseBenchFlags({
  script: 'slot-write.ts',
  summary:
    'Writing an OS image into an A/B slot as the droplet agent does, against a bare Node pipeline and dd. One JSON ' +
    'line per figure on stdout, progress on stderr.',
  flags: {},
  notes:
    "Environment: IMAGE_MIB (default 512), RUNS (default 5); CHECKPOINT_MS overrides the agent's fsync checkpoint " +
    'interval.',
});
// the agent's modules import @outpost/shared, which tsx resolves to shared/dist
requireBuiltPackages(['shared']);
const { fileSlotTarget } = await import('../../agent/src/os/boot/slot-target.js');
const { downloadImage } = await import('../../agent/src/os/download/image-download.js');
const { checkImageSignature } = await import('../../agent/src/os/trust/image-signature.js');
const { loadTrustedKeys } = await import('../../agent/src/os/trust/trusted-keys.js');

const report = createReporter('slot-write');
exitAfter(TIME_LIMIT_MS, 2, 'slot-write: time limit reached');

await withTempDir('outpost-bench-slot-', async (dir) => {
  report.progress(`generating a ${IMAGE_BYTES / MiB} MiB image in ${dir}`);
  const imagePath = join(dir, 'image.img');
  const sha256 = await writeRandomImage(imagePath, IMAGE_BYTES);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const signature = sign(null, Buffer.from(sha256, 'hex'), privateKey).toString('base64');
  const trustDir = join(dir, 'trust');
  await mkdir(trustDir);
  await writeFile(join(trustDir, 'bench.pub'), publicKey.export({ type: 'spki', format: 'pem' }));

  const server = createServer((request, response) => {
    const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? '');
    const start = range === null ? 0 : Number(range[1]);
    const headers: Record<string, string> = {
      'content-length': String(IMAGE_BYTES - start),
      etag: `"${sha256}"`,
      'content-type': 'application/octet-stream',
    };
    if (start > 0) headers['content-range'] = `bytes ${start}-${IMAGE_BYTES - 1}/${IMAGE_BYTES}`;
    response.writeHead(start > 0 ? 206 : 200, headers);
    createReadStream(imagePath, { start, highWaterMark: MiB }).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`/v1/artifacts/${sha256}`, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const slotPath = join(dir, 'slots', 'B.img');
  await mkdir(join(dir, 'slots'));

  const ways: Record<string, () => Promise<void>> = {
    agent: async () => {
      const digest = await downloadImage({
        url,
        authorization: async () => 'Bearer bench',
        image: { sha256, size: IMAGE_BYTES },
        target: fileSlotTarget('B', slotPath, 2 * IMAGE_BYTES),
        resumeFrom: 0,
        onCheckpoint: async () => {},
        ...(CHECKPOINT_MS === undefined ? {} : { checkpointIntervalMs: CHECKPOINT_MS }),
      });
      if (digest.toString('hex') !== sha256) throw new Error('agent: sha256 mismatch');
      const trusted = await loadTrustedKeys([trustDir]);
      const check = checkImageSignature('bench', digest, signature, trusted.keys, [trustDir]);
      if (!check.ok) throw new Error(`agent: ${check.message}`);
    },
    bare: async () => {
      const hash = createHash('sha256');
      const response = await new Promise<IncomingMessage>((resolve, reject) => get(url, resolve).on('error', reject));
      const output = createWriteStream(slotPath);
      await pipeline(
        response,
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk);
            done(null, chunk);
          },
        }),
        output,
      );
      const file = await open(slotPath, 'r+');
      await file.sync();
      await file.close();
      if (hash.digest('hex') !== sha256) throw new Error('bare: sha256 mismatch');
    },
    dd: async () => {
      await promisify(execFile)('dd', [`if=${imagePath}`, `of=${slotPath}`, 'bs=4M', 'conv=fsync', 'status=none']);
    },
  };

  const seconds: Record<string, number[]> = { agent: [], bare: [], dd: [] };
  for (let run = 1; run <= RUNS; run++) {
    for (const [name, way] of Object.entries(ways)) {
      await rm(slotPath, { force: true });
      const started = performance.now();
      await way();
      const elapsed = (performance.now() - started) / 1000;
      if ((await stat(slotPath)).size !== IMAGE_BYTES) throw new Error(`${name}: the slot has the wrong size`);
      seconds[name]?.push(elapsed);
      report.progress(`run ${run}/${RUNS} ${name}: ${(IMAGE_BYTES / 1e6 / elapsed).toFixed(1)} MB/s`);
    }
  }
  server.close();

  const mbPerSecond = (name: string): number => IMAGE_BYTES / 1e6 / summarize(seconds[name] ?? []).p50;
  const agent = mbPerSecond('agent');
  const bare = mbPerSecond('bare');
  const dd = mbPerSecond('dd');
  report.figure('agent_mb_s', agent, { unit: 'MB/s', samples: RUNS });
  report.figure('bare_pipeline_mb_s', bare, { unit: 'MB/s', samples: RUNS });
  report.figure('dd_fsync_mb_s', dd, { unit: 'MB/s', samples: RUNS });
  report.figure('agent_vs_bare_ratio', agent / bare, { goal: '>=0.9' });
  report.figure('agent_vs_dd_ratio', agent / dd);
});

/** Writes `size` random bytes; returns their sha256. */
async function writeRandomImage(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const file = await open(path, 'w');
  const block = Buffer.allocUnsafe(4 * MiB);
  try {
    for (let written = 0; written < size; written += block.length) {
      const chunk = block.subarray(0, Math.min(block.length, size - written));
      randomFillSync(chunk);
      hash.update(chunk);
      await file.write(chunk);
    }
  } finally {
    await file.close();
  }
  return hash.digest('hex');
}
