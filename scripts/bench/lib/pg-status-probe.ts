import { SyncPostgres } from '../../../control-plane/src/resources/storage/postgres/sync-postgres.js';

/** What fleet-connect reads of the stored statuses while it measures (its StoreProbe), from PostgreSQL. */
export interface PgStatusProbe {
  /** device writes so far (the change log's head) */
  writes(): number;
  /** status reports stored so far: the sum over devices of `markerPath` of the stored status, over `markerUnit` */
  reports(): number;
  close(): void;
}

/**
 * Reads the control plane's PostgreSQL database on a connection of its own (the change log's head and the
 * devices' documents, as the SQLite probe reads the file).
 */
export function pgStatusProbe(url: string, markerPath: readonly string[], markerUnit: number): PgStatusProbe {
  const pg = new SyncPostgres(url);
  const path = `{${markerPath.join(',')}}`;
  return {
    writes: () => Number(pg.query('SELECT seq FROM change_log_head').rows[0]?.[0] ?? 0),
    reports: () => {
      const total = pg.query('SELECT COALESCE(SUM((doc #>> $1::text[])::numeric), 0) FROM r_devices', [path]);
      return Math.round(Number(total.rows[0]?.[0] ?? 0) / markerUnit);
    },
    close: () => pg.close(),
  };
}
