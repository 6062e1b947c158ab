import { describe, expect, it } from 'vitest';
import { createDeviceService } from '../../src/devices/device-service.js';
import { createLimitsService } from '../../src/limits/index.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { REWRITTEN_TOGETHER_FILLFACTOR } from '../../src/resources/storage/postgres/pg-table.js';
import type { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { SyncPostgres } from '../../src/resources/storage/postgres/sync-postgres.js';
import { postgresSuiteSkipped, suitePostgres } from '../helpers/suite-postgres.js';
import { DEVICES, limitName, PROJECT_PLAN } from './limits-fixture.js';

/**
 * A plan change rewrites every dependent limit, pool and assignment in one transaction. On PostgreSQL those
 * tables keep room for a new version of every row on its page, so the whole rewrite is heap-only (no index
 * entry written), not only its first few rows of each page.
 */
const TITLE = 'limits on PostgreSQL: a plan change is heap-only';
const PROJECTS = 60;
const REGIONS = ['r1', 'r2', 'r3'];
/** The tables a plan change rewrites, as pg_stat_user_tables names them. */
const REWRITTEN = ['r_limits', 'r_limitpools', 'r_planassignments', 'r_acceptedplans'];
const STATS_TIMEOUT_MS = 60_000;

describe.skipIf(postgresSuiteSkipped(TITLE))(TITLE, () => {
  const postgres = suitePostgres();

  it('rewrites every dependent limit, pool and assignment without an index entry', async () => {
    const url = postgres.createDatabase();
    const storage = postgres.open(url);
    const engine = new ResourceEngine(storage);
    const limits = createLimitsService(engine);
    createDeviceService(engine, { meteredBy: limits }); // devices are metered: the default plans limit them
    limits.bootstrap();
    const h = limits.handles;
    engine.transaction(() => {
      h.organizations.create({ parent: '', resource: { name: 'organizations/o1' } });
      for (let p = 0; p < PROJECTS; p++) {
        h.projects.create({
          parent: '',
          resource: { name: `projects/p${p}`, parentOrganization: 'organizations/o1', regions: REGIONS },
        });
      }
    });
    for (const table of REWRITTEN) expect(fillfactorOf(storage, table)).toBe(REWRITTEN_TOGETHER_FILLFACTOR);
    const before = await settledStats(url, {});

    h.plans.update({
      resource: { name: PROJECT_PLAN, resourceLimits: [{ resource: DEVICES, value: 1500 }] },
      updateMask: 'resourceLimits',
    });
    expect(h.limits.find(limitName(`projects/p${PROJECTS - 1}`, 'r3'))).toMatchObject({ configuredLimit: 1500 });

    // every limit, assignment (both documents) and the organization's pools moved
    const rewritten = PROJECTS * REGIONS.length + 2 * PROJECTS + REGIONS.length;
    const after = await settledStats(url, { atLeast: sum(before.updated) + rewritten });
    for (const table of REWRITTEN) {
      const updated = (after.updated[table] ?? 0) - (before.updated[table] ?? 0);
      const heapOnly = (after.heapOnly[table] ?? 0) - (before.heapOnly[table] ?? 0);
      expect({ table, updated: updated > 0, heapOnly }).toEqual({ table, updated: true, heapOnly: updated });
    }
  });
});

interface TableStats {
  updated: Record<string, number>;
  heapOnly: Record<string, number>;
}

const sum = (counts: Record<string, number>): number => Object.values(counts).reduce((a, b) => a + b, 0);

function fillfactorOf(storage: PgStorage, table: string): number | undefined {
  const options = storage.query('SELECT reloptions FROM pg_class WHERE oid = to_regclass(?)', [table]).rows[0]?.[0];
  const setting = Array.isArray(options) ? options.find((o) => String(o).startsWith('fillfactor=')) : undefined;
  return setting === undefined ? undefined : Number(String(setting).split('=')[1]);
}

/**
 * The rewritten tables' update counts once PostgreSQL's statistics show at least `atLeast` updates in all (a
 * backend reports them when it goes idle, within seconds), read on a connection of its own.
 */
async function settledStats(url: string, { atLeast = 0 }: { atLeast?: number }): Promise<TableStats> {
  const pg = new SyncPostgres(url);
  try {
    const deadline = Date.now() + STATS_TIMEOUT_MS;
    for (;;) {
      pg.query('SELECT pg_stat_clear_snapshot()');
      const stats: TableStats = { updated: {}, heapOnly: {} };
      const rows = pg.query(
        'SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = ANY($1::text[])',
        [REWRITTEN],
      ).rows;
      for (const [table, updated, heapOnly] of rows) {
        stats.updated[String(table)] = Number(updated);
        stats.heapOnly[String(table)] = Number(heapOnly);
      }
      if (sum(stats.updated) >= atLeast || Date.now() > deadline) return stats;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    pg.close();
  }
}
