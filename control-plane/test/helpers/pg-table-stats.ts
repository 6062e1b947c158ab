import { SyncPostgres } from '../../src/resources/storage/postgres/sync-postgres.js';

const STATS_TIMEOUT_MS = 60_000;

/**
 * Columns of `table`'s row in pg_stat_user_tables, read on a connection of its own until `settled` holds of them
 * (a backend reports its statistics when it goes idle, within seconds), or as they are after a minute.
 */
export async function settledTableStats(
  url: string,
  table: string,
  columns: readonly string[],
  settled: (values: number[]) => boolean,
): Promise<number[]> {
  const pg = new SyncPostgres(url);
  try {
    const deadline = Date.now() + STATS_TIMEOUT_MS;
    for (;;) {
      pg.query('SELECT pg_stat_clear_snapshot()');
      const row = pg.query(`SELECT ${columns.join(', ')} FROM pg_stat_user_tables WHERE relname = $1`, [table]).rows[0];
      const values = columns.map((_, i) => Number(row?.[i] ?? 0));
      if (settled(values) || Date.now() > deadline) return values;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    pg.close();
  }
}
