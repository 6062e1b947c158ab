import type pg from 'pg';
import type { SimulatorCommand } from '../fleet-simulator.js';
import type { SimulatorProcess } from '../lib/cluster-fleet.js';
import { sleep } from '../lib/time.js';
import type { CpuMeter } from './cpu-meter.js';

const STORE_TIMEOUT_MS = 300_000;
const HEAD = 'SELECT seq FROM change_log_head';
const DATABASE_STATS = `SELECT xact_commit AS commits, tup_inserted + tup_updated + tup_deleted AS rows
  FROM pg_stat_database WHERE datname = current_database()`;

export interface PacedPhase {
  sims: readonly SimulatorProcess[];
  client: pg.Client;
  cpu: CpuMeter;
  /** messages to send in all (rounded up to a multiple of the simulators) */
  count: number;
  /** at most this many device writes behind what was sent */
  ahead: number;
  /** the `report` command that makes each simulator send its share, granted `allowance` at first */
  command: (perSimulator: number, allowance: number) => SimulatorCommand;
  /** the messages the store holds, counted exactly (read every 2 s, and at the end) */
  exactlyStored: () => Promise<number>;
  /**
   * how long to wait after the phase before reading PostgreSQL's counters: a busy backend reports its counts
   * at most once a second, an idle one within 10 s (PostgreSQL 15's PGSTAT_IDLE_INTERVAL); default none
   */
  countersSettleMs?: number;
}

export interface PhaseOutcome {
  /** messages sent */
  total: number;
  stored: number;
  seconds: number;
  /** device writes (the change log's head moved by this much) */
  writes: number;
  /** PostgreSQL's own counters over the phase (pg_stat_database) */
  commits: number;
  rowsWritten: number;
  cpu: { replicas: number; postgres: number };
}

/**
 * Has the simulators send `count` messages as fast as the cluster stores them: flow control on the change log's
 * head (device writes: cheap to read), never more than `ahead` writes behind; the end on the exact count. Links
 * that never came in drop their messages: then the end is when everything was sent and nothing more lands.
 */
export async function runPacedPhase(phase: PacedPhase): Promise<PhaseOutcome> {
  const { sims, client, cpu, ahead } = phase;
  const head = async (): Promise<number> => Number((await client.query<{ seq: string }>(HEAD)).rows[0]?.seq ?? 0);
  const stats = async (): Promise<{ commits: number; rows: number }> => {
    const row = (await client.query<{ commits: string; rows: string }>(DATABASE_STATS)).rows[0];
    return { commits: Number(row?.commits ?? 0), rows: Number(row?.rows ?? 0) };
  };
  const perSimulator = Math.ceil(phase.count / sims.length);
  const total = perSimulator * sims.length;
  const [head0, stats0, stored0] = [await head(), await stats(), await phase.exactlyStored()];
  await cpu.start();
  const started = performance.now();
  for (const simulator of sims) simulator.send(phase.command(perSimulator, Math.ceil(ahead / sims.length)));
  let allSent = false;
  void Promise.all(sims.map((simulator) => simulator.sent)).then(() => (allSent = true));
  let stored = 0;
  let exactAt = started;
  let settledAt = performance.now();
  while (stored < total) {
    if (performance.now() - started > STORE_TIMEOUT_MS) break;
    if (allSent && performance.now() - settledAt > 5_000) break;
    for (const simulator of sims) simulator.assertRunning();
    await sleep(100);
    const writes = (await head()) - head0;
    const upTo = Math.ceil((writes + ahead) / sims.length);
    for (const simulator of sims) simulator.send({ cmd: 'allow', upTo });
    if (writes >= total || performance.now() - exactAt > 2_000) {
      exactAt = performance.now();
      const now = (await phase.exactlyStored()) - stored0;
      if (now > stored) settledAt = performance.now();
      stored = now;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const writes = (await head()) - head0;
  const used = await cpu.read();
  if (phase.countersSettleMs !== undefined) await sleep(phase.countersSettleMs);
  const stats1 = await stats();
  return {
    total,
    stored,
    seconds,
    writes,
    commits: stats1.commits - stats0.commits,
    rowsWritten: stats1.rows - stats0.rows,
    cpu: used,
  };
}
