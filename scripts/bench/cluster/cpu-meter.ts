import type pg from 'pg';
import { cpuSecondsOf } from '../lib/process-stats.js';

export interface CpuMeter {
  start(): Promise<void>;
  /** CPU seconds used since start: by the replicas, and by PostgreSQL's processes (its backends and workers) */
  read(): Promise<{ replicas: number; postgres: number }>;
}

/** The CPU time the replicas (`replicaPids`) and PostgreSQL use over a phase (/proc/<pid>/stat; the machine is shared). */
export function cpuMeter(replicaPids: readonly number[], client: pg.Client): CpuMeter {
  const postgresPids = async (): Promise<number[]> =>
    (await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity')).rows.map((row) => row.pid);
  const cpuOf = (pids: number[]): Map<number, number> => {
    const used = new Map<number, number>();
    for (const pid of pids) {
      try {
        used.set(pid, cpuSecondsOf(pid));
      } catch {
        // ended meanwhile
      }
    }
    return used;
  };
  let replicasAtStart = 0;
  let postgresAtStart = new Map<number, number>();
  const replicaCpu = (): number => replicaPids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
  return {
    async start() {
      replicasAtStart = replicaCpu();
      postgresAtStart = cpuOf(await postgresPids());
    },
    async read() {
      const now = cpuOf([...new Set([...postgresAtStart.keys(), ...(await postgresPids())])]);
      let postgres = 0;
      for (const [pid, seconds] of now) postgres += seconds - (postgresAtStart.get(pid) ?? 0);
      return { replicas: replicaCpu() - replicasAtStart, postgres };
    },
  };
}
