import { SQL_FUNCTIONS } from '../sql/sql-functions.js';
import { pendingMigrations } from '../migrations.js';
import type { Migration } from '../migrations.js';
import type { PgStorage } from './pg-storage.js';

/** Serialises schema changes of every control plane sharing the database (pg_advisory_xact_lock's key). */
export const SCHEMA_LOCK = 0x6f757470; // 'outp'

/**
 * The PostgreSQL definitions of the engine's SQL functions (SQL_FUNCTIONS): the same results as their
 * JavaScript implementations, as booleans. outpost_name_match(value, pattern): '-' segments of the pattern match
 * any one segment, the others must be equal, and as many (regexp_split_to_array splits '' into one segment, as
 * String.split does).
 */
const FUNCTION_DEFINITIONS: Readonly<Record<string, string>> = {
  outpost_name_match: `CREATE OR REPLACE FUNCTION outpost_name_match(value text, pattern text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT cardinality(v) = cardinality(p) AND NOT EXISTS (
        SELECT 1 FROM unnest(p, v) AS s(want, have) WHERE want <> '-' AND want IS DISTINCT FROM have)
      FROM (SELECT regexp_split_to_array(value, '/') AS v, regexp_split_to_array(pattern, '/') AS p) AS split
    $$`,
};

/**
 * The PostgreSQL schema's versions, kept in outpost_schema. The tables of the resource kinds follow their filter
 * schemas as each kind is registered (see PgTable), not these steps.
 */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "the change log, its head (whose row lock orders appends by commit), the engine's SQL functions",
    statements: [
      `CREATE TABLE change_log (
        seq bigint PRIMARY KEY,
        plural text COLLATE "C" NOT NULL,
        name text COLLATE "C" NOT NULL,
        op text NOT NULL,
        doc text,
        paths text,
        prior text,
        time text COLLATE "C" NOT NULL
      )`,
      'CREATE INDEX change_log_by_time ON change_log(time)',
      'CREATE INDEX change_log_by_plural ON change_log(plural, seq)',
      'CREATE TABLE change_log_head (only_row boolean PRIMARY KEY DEFAULT TRUE CHECK (only_row), seq bigint NOT NULL)',
      'INSERT INTO change_log_head(seq) VALUES (0)',
      ...SQL_FUNCTIONS.map((fn) => {
        const definition = FUNCTION_DEFINITIONS[fn.name];
        if (definition === undefined) throw new Error(`SQL function ${fn.name} has no PostgreSQL definition`);
        return definition;
      }),
    ],
  },
  {
    version: 2,
    description:
      "the services' stores behind the engine (EngineStores): API keys, device credentials, provisioning tokens, " +
      'metrics history',
    statements: [
      `CREATE TABLE iam_api_keys (
        id text COLLATE "C" PRIMARY KEY,
        display_name text NOT NULL,
        grants_json text NOT NULL,
        secret_sha256 bytea NOT NULL,
        create_time text COLLATE "C" NOT NULL
      )`,
      `CREATE TABLE device_credentials (
        device text COLLATE "C" PRIMARY KEY,
        secret_sha256 bytea NOT NULL UNIQUE,
        create_time text NOT NULL
      )`,
      `CREATE TABLE device_public_keys (
        device text COLLATE "C" PRIMARY KEY,
        public_key_pem text NOT NULL,
        create_time text NOT NULL
      )`,
      `CREATE TABLE provisioning_tokens (
        secret_sha256 bytea PRIMARY KEY,
        parent text COLLATE "C" NOT NULL,
        create_time text COLLATE "C" NOT NULL,
        expire_time text COLLATE "C" NOT NULL,
        max_uses integer,
        uses integer NOT NULL DEFAULT 0
      )`,
      'CREATE INDEX provisioning_tokens_by_expiry ON provisioning_tokens(expire_time)',
      'CREATE INDEX provisioning_tokens_by_parent ON provisioning_tokens(parent, create_time)',
      `CREATE TABLE device_metric_points (
        device text COLLATE "C" NOT NULL,
        resolution_ms bigint NOT NULL,
        bucket bigint NOT NULL,
        count integer NOT NULL,
        cpu_sum float8 NOT NULL, cpu_max float8 NOT NULL,
        mem_used_sum float8 NOT NULL, mem_total_max float8 NOT NULL,
        storage_used_sum float8 NOT NULL, storage_total_max float8 NOT NULL,
        temp_sum float8 NOT NULL, temp_count integer NOT NULL,
        load_sum float8 NOT NULL, load_count integer NOT NULL,
        uptime_max float8 NOT NULL,
        PRIMARY KEY (device, resolution_ms, bucket)
      )`,
      'CREATE INDEX device_metric_points_age ON device_metric_points(resolution_ms, bucket)',
    ],
  },
];

/** Work of a step beyond its statements, by the version it brings: run in the step's transaction, after them. */
export type MigrationSteps = Readonly<Partial<Record<number, (storage: PgStorage) => void>>>;

/** Brings the database to the newest schema version, each step in a transaction of its own. */
export function migratePostgres(
  storage: PgStorage,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
  steps: MigrationSteps = {},
): void {
  for (;;) {
    const done = storage.transaction(() => {
      storage.run([
        { sql: 'SELECT pg_advisory_xact_lock(?)', params: [SCHEMA_LOCK] },
        { sql: 'CREATE TABLE IF NOT EXISTS outpost_schema (version integer NOT NULL)' },
      ]);
      const current = Number(storage.query('SELECT COALESCE(MAX(version), 0) FROM outpost_schema').rows[0]?.[0] ?? 0);
      const next = pendingMigrations(migrations, current)[0];
      if (next === undefined) return true;
      storage.run(next.statements.map((sql) => ({ sql })));
      steps[next.version]?.(storage);
      storage.run([{ sql: 'INSERT INTO outpost_schema(version) VALUES (?)', params: [next.version] }]);
      return false;
    });
    if (done) return;
  }
}
