/**
 * Benchmark: the CPU one device's status write costs the control plane's storage path, on SQLite or PostgreSQL,
 * without sockets or agents: the gateway's StatusWriter over the real engine and devices table, fed the fleet
 * simulator's status messages (lib/simulated-status.ts), `--per-flush` devices per transaction as the writer's
 * timed flush takes them. CPU is what the machine's load leaves most comparable: this process's CPU (its main
 * thread and, on PostgreSQL, the bridge's worker thread that runs the `pg` driver) and PostgreSQL's server
 * processes, per device write.
 *
 * Figures (one JSON line each on stdout, with "store"; progress on stderr):
 *   status_write_cpu_us        this process's CPU per device write (merge, stamp, change log, the store's write)
 *   status_write_db_cpu_us     (PostgreSQL) the database server's CPU per device write
 *   status_writes_per_s        device writes per second of wall time (depends on what else runs)
 *
 * Run from the repository root:  npx tsx scripts/bench/status-writes.ts [--postgres | --database URL]
 *   [--devices 10000] [--rounds 5] [--per-flush 1000]
 */
import { join } from 'node:path';
import type { AgentMessage, ReportedStatus } from '@outpost/shared';
import type { StorageLocation } from '../../control-plane/src/resources/storage/open-storage.js';
import { parseBenchFlags } from './lib/bench-flags.js';
import { BENCH_STORE_FLAGS, benchStoreOf, checkStoreFlags } from './lib/bench-store.js';
import { pgStatusProbe } from './lib/pg-status-probe.js';
import { createReporter } from './lib/report.js';
import { statusMessage } from './lib/simulated-status.js';
import { withTempDir } from './lib/temp-dir.js';

const PARENT = 'projects/bench/regions/r1';
const SEED_BATCH = 1000;

const { values, fail, integer } = parseBenchFlags({
  script: 'status-writes.ts',
  summary:
    "The CPU one device's status write costs the control plane's storage path (the gateway's StatusWriter over the " +
    'real engine), on SQLite or PostgreSQL, without sockets or agents. One JSON line per figure on stdout.',
  flags: {
    ...BENCH_STORE_FLAGS,
    devices: { value: 'N', default: '10000', help: 'devices seeded and written' },
    rounds: { value: 'N', default: '5', help: 'measured rounds of one status write per device' },
    'per-flush': {
      value: 'N',
      default: '1000',
      help: "devices per transaction, as the writer's timed flush takes them",
    },
  },
});
checkStoreFlags(values, fail);
const devices = integer(values.devices, 'devices');
const rounds = integer(values.rounds, 'rounds');
const perFlush = integer(values['per-flush'], 'per-flush');

/** What the gateway hands the status writer of a status message (its type and seq left out). */
function reportedOf(message: AgentMessage): ReportedStatus {
  if (message.type !== 'status') throw new Error('not a status message');
  const { type: _type, seq: _seq, ...reported } = message;
  return reported;
}

async function main(): Promise<void> {
  const store = await benchStoreOf(values);
  try {
    await withTempDir('outpost-status-writes-', async (dir) => {
      const url = store.freshDatabase();
      const location: StorageLocation =
        url === undefined || url.startsWith('sqlite:')
          ? { kind: 'sqlite', file: url?.slice('sqlite:'.length) ?? join(dir, 'outpost.db') }
          : { kind: 'postgres', url };
      await measure(location);
    });
  } finally {
    store.stop();
  }
}

async function measure(location: StorageLocation): Promise<void> {
  // imported once the command line is accepted: --help answers also while the sources do not load
  const { deviceDefinition } = await import('@outpost/shared');
  const { StatusWriter } = await import('../../control-plane/src/gateway/status-writer.js');
  const { ResourceEngine } = await import('../../control-plane/src/resources/resource-engine.js');
  const { openStorage } = await import('../../control-plane/src/resources/storage/open-storage.js');
  const report = createReporter('status-writes', { store: location.kind });
  const opened = openStorage(location);
  const engine = new ResourceEngine(opened.storage, opened.checkpoints ? { checkpoints: opened.checkpoints } : {});
  const handle = engine.register(deviceDefinition);
  const names = Array.from({ length: devices }, (_, i) => `${PARENT}/devices/d${i}`);
  for (let i = 0; i < devices; i += SEED_BATCH) {
    engine.transaction(() => {
      for (const name of names.slice(i, i + SEED_BATCH)) handle.put({ name });
    });
  }
  report.progress(`seeded ${devices} devices on ${location.kind}`);
  const writer = new StatusWriter(handle, {
    flushDelayMs: 3_600_000, // flushed by hand below
    onFlushFailed: (err) => {
      throw err;
    },
  });
  const probe = location.kind === 'postgres' ? pgStatusProbe(location.url, [], 1) : undefined;
  const writeRound = (seq: number): void => {
    for (let i = 0; i < devices; i += perFlush) {
      for (let d = i; d < Math.min(devices, i + perFlush); d++) {
        writer.report(names[d]!, reportedOf(statusMessage(d, seq, 4096)));
      }
      if (!writer.flush()) throw new Error('a flush failed');
    }
  };
  writeRound(1); // the first report of each device also stores its device info: not the steady state
  const dbCpu = probe?.serverCpu();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let round = 2; round <= rounds + 1; round++) {
    writeRound(round);
    report.progress(`round ${round - 1} of ${rounds} written`);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const writes = devices * rounds;
  report.figure('status_write_cpu_us', (cpu.user + cpu.system) / writes, { unit: 'us', samples: writes });
  if (dbCpu) report.figure('status_write_db_cpu_us', (dbCpu() * 1e6) / writes, { unit: 'us', samples: writes });
  report.figure('status_writes_per_s', writes / seconds, { unit: 'writes/s', samples: writes });
  probe?.close();
  writer.close();
  await opened.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`status-writes: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
