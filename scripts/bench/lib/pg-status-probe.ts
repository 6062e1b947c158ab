import { SyncPostgres } from '../../../control-plane/src/resources/storage/postgres/sync-postgres.js';
import { cpuSecondsOf } from './process-stats.js';

/** What fleet-connect reads of the stored statuses while it measures (its StoreProbe), from PostgreSQL. */
export interface PgStatusProbe {
  /** device writes so far (the change log's head) */
  writes(): number;
  /** status reports stored so far: the sum over devices of `markerPath` of the stored status, over `markerUnit` */
  reports(): number;
  /**
   * Starts counting the CPU of the cluster's server processes on this machine (backends and background
   * processes; the probe's own backend left out): the seconds they used since, read by the function returned.
   */
  serverCpu(): () => number;
  close(): void;
}

/**
 * Reads the control plane's PostgreSQL database on a connection of its own (the change log's head and the
 * devices' documents, as the SQLite probe reads the file).
 */
export function pgStatusProbe(url: string, markerPath: readonly string[], markerUnit: number): PgStatusProbe {
  const pg = new SyncPostgres(url);
  const path = `{${markerPath.join(',')}}`;
  /** CPU seconds so far of each server process alive now */
  const serverProcesses = (): Map<number, number> => {
    const { rows } = pg.query('SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()');
    const cpu = new Map<number, number>();
    for (const [pid] of rows) {
      try {
        cpu.set(Number(pid), cpuSecondsOf(Number(pid)));
      } catch {
        // gone meanwhile
      }
    }
    return cpu;
  };
  return {
    writes: () => Number(pg.query('SELECT seq FROM change_log_head').rows[0]?.[0] ?? 0),
    reports: () => {
      const total = pg.query('SELECT COALESCE(SUM((doc #>> $1::text[])::numeric), 0) FROM r_devices', [path]);
      return Math.round(Number(total.rows[0]?.[0] ?? 0) / markerUnit);
    },
    serverCpu: () => {
      const before = serverProcesses();
      // a process that started since counts from zero, one that ended is lost with what it used
      return () => [...serverProcesses()].reduce((sum, [pid, cpu]) => sum + cpu - (before.get(pid) ?? 0), 0);
    },
    close: () => pg.close(),
  };
}
