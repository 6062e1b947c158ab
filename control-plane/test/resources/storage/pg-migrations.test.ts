/**
 * A PostgreSQL database made by the previous schema (version 1: the change log and the resource tables, before
 * the services' stores moved into the engine's database at version 2) opens at the current version with its
 * resources and change log, and takes writes after.
 */
import { describe, expect, it } from 'vitest';
import { ResourceEngine } from '../../../src/resources/resource-engine.js';
import { POSTGRES_MIGRATIONS } from '../../../src/resources/storage/postgres/pg-migrations.js';
import { PgStorage } from '../../../src/resources/storage/postgres/pg-storage.js';
import { postgresSuiteSkipped, suitePostgres } from '../../helpers/suite-postgres.js';
import { widgetDefinition } from '../../helpers/widgets.js';

const PARENT = 'projects/p1/regions/eu';
const VERSION_2_TABLES = [
  'iam_api_keys',
  'device_credentials',
  'device_public_keys',
  'provisioning_tokens',
  'device_metric_points',
];

describe.skipIf(postgresSuiteSkipped('PostgreSQL schema upgrade'))('PostgreSQL schema migrations [postgres]', () => {
  const postgres = suitePostgres();

  /**
   * A database made by the release of schema version 1 (only the first migration run): two widgets, one updated,
   * three changes logged, and none of version 2's tables.
   */
  function previousSchemaDatabase(): string {
    const url = postgres.createDatabase();
    const before = new PgStorage(url, { migrations: POSTGRES_MIGRATIONS.slice(0, 1) });
    try {
      const widgets = new ResourceEngine(before).register(widgetDefinition);
      widgets.put({ name: `${PARENT}/widgets/kept`, spec: { color: 'red', size: 3 } });
      widgets.put({ name: `${PARENT}/widgets/kept`, spec: { color: 'blue', size: 3 } });
      widgets.put({ name: `${PARENT}/widgets/other`, spec: { color: 'green' } });
      expect(before.query('SELECT version FROM outpost_schema').rows.flat()).toEqual([1]);
      const tables = before.query(
        `SELECT count(*) FROM information_schema.tables WHERE table_name IN (${VERSION_2_TABLES.map((t) => `'${t}'`).join(', ')})`,
      );
      expect(Number(tables.rows[0]![0])).toBe(0);
    } finally {
      before.close();
    }
    return url;
  }

  it('upgrades a database of the previous schema (version 1) and keeps its resources and change log', () => {
    // a version 3 needs this test to build version 2's database (or a test of its own)
    expect(POSTGRES_MIGRATIONS.map((m) => m.version)).toEqual([1, 2]);
    const url = previousSchemaDatabase();

    const reopened = postgres.open(url);
    expect(reopened.query('SELECT version FROM outpost_schema ORDER BY version').rows.flat()).toEqual([1, 2]);
    const engine = new ResourceEngine(reopened);
    const widgets = engine.register(widgetDefinition);
    expect((widgets.find(`${PARENT}/widgets/kept`)!['spec'] as { color: string }).color).toBe('blue');
    expect(widgets.list({ where: [] }).map((w) => w.name)).toEqual([
      `${PARENT}/widgets/kept`,
      `${PARENT}/widgets/other`,
    ]);
    expect(engine.log.head()).toBe(3);
    expect(engine.log.read('widgets', 0, 10).map((c) => [c.seq, c.op, c.name])).toEqual([
      [1, 'create', `${PARENT}/widgets/kept`],
      [2, 'update', `${PARENT}/widgets/kept`],
      [3, 'create', `${PARENT}/widgets/other`],
    ]);

    // writes work after: a resource (logged after what was there) and a record of a version 2 table
    widgets.put({ name: `${PARENT}/widgets/new`, spec: { color: 'red' } });
    expect(engine.log.head()).toBe(4);
    const key = {
      id: 'upgraded0001',
      displayName: 'after the upgrade',
      grantsJson: '[]',
      secretSha256: new Uint8Array(32).fill(7),
      createTime: '2030-01-01T00:00:00.000Z',
    };
    expect(engine.stores.apiKeys.insertIfAbsent(key)).toBe(true);
    expect(engine.stores.apiKeys.get(key.id)?.displayName).toBe('after the upgrade');
  });
});
