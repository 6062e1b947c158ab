import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresError, SyncPostgres } from '../../../src/resources/storage/postgres/sync-postgres.js';
import { postgresMissing, startPostgresCluster } from '../../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../helpers/postgres-cluster.js';

/**
 * The synchronous connection sends the statements of one request inside a transaction block as one pipeline: one
 * write to the server, the first failure stops the rest, and the transaction commits or rolls back as a whole.
 */
const missing = postgresMissing();
const required = process.env['CI'] === 'true';
if (missing !== undefined && !required) console.warn(`PostgreSQL pipeline test skipped: ${missing}`);

/*
 * A TCP relay in a worker thread (the test's thread blocks in SyncPostgres while a request runs) that counts the
 * chunks the client sends: statements sent one at a time arrive as one chunk each at least, as each waits for the
 * answer to the one before.
 */
const RELAY_SOURCE = `
const net = require('node:net');
const { workerData, parentPort } = require('node:worker_threads');
const chunks = new Int32Array(workerData.chunks);
const server = net.createServer((client) => {
  const upstream = net.connect(workerData.port, '127.0.0.1');
  client.on('data', (data) => { Atomics.add(chunks, 0, 1); upstream.write(data); });
  upstream.on('data', (data) => client.write(data));
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
  client.on('error', () => {});
  upstream.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

async function startRelay(port: number): Promise<{ port: number; chunks: Int32Array; stop: () => Promise<number> }> {
  const chunks = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(RELAY_SOURCE, { eval: true, workerData: { port, chunks: chunks.buffer } });
  const relayPort = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { port: relayPort, chunks, stop: () => worker.terminate() };
}

describe.skipIf(missing !== undefined && !required)('statements of one request in a transaction block', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
  }, 120_000);
  afterAll(() => cluster?.stop());

  const withConnection = (url: string, fn: (pg: SyncPostgres) => void): void => {
    const pg = new SyncPostgres(url);
    try {
      pg.query('CREATE TABLE items (id int PRIMARY KEY, note text)');
      fn(pg);
    } finally {
      pg.close();
    }
  };
  const ids = (pg: SyncPostgres): unknown[] => pg.query('SELECT id FROM items ORDER BY id').rows.map((row) => row[0]);
  const insert = (id: number): { sql: string; params: unknown[] } => ({
    sql: 'INSERT INTO items (id, note) VALUES ($1, $2)',
    params: [id, `item ${id}`],
  });

  it('reach the server in one write and commit together', async () => {
    const url = new URL(cluster.createDatabase());
    const relay = await startRelay(Number(url.port));
    url.port = String(relay.port);
    try {
      withConnection(url.toString(), (pg) => {
        const before = Atomics.load(relay.chunks, 0);
        const statements = [{ sql: 'BEGIN' }, ...[1, 2, 3, 4, 5, 6, 7, 8].map(insert), { sql: 'COMMIT' }];
        const results = pg.run(statements);
        const sent = Atomics.load(relay.chunks, 0) - before;
        // one at a time they would be 10 chunks at least
        expect(sent).toBeLessThan(statements.length / 2);
        expect(results.map((result) => result.rowCount)).toEqual([0, 1, 1, 1, 1, 1, 1, 1, 1, 0]);
        expect(ids(pg)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      });
    } finally {
      await relay.stop();
    }
  });

  it('stop at the first that fails, which undoes the transaction as a whole', () => {
    withConnection(cluster.createDatabase(), (pg) => {
      pg.run([{ sql: 'BEGIN' }, insert(1), { sql: 'COMMIT' }]);
      let failure: unknown;
      try {
        pg.run([{ sql: 'BEGIN' }, insert(2), insert(1), insert(3), { sql: 'COMMIT' }]);
      } catch (err) {
        failure = err;
      }
      expect(failure).toBeInstanceOf(PostgresError);
      expect((failure as PostgresError).code).toBe('23505');
      expect((failure as PostgresError).statementIndex).toBe(2);
      // the transaction is left failed, as a statement failing alone leaves it
      expect(() => pg.query('SELECT 1')).toThrow(/aborted/);
      pg.query('ROLLBACK');
      expect(ids(pg)).toEqual([1]);
    });
  });

  it('prepare again what a failure kept from being prepared', () => {
    withConnection(cluster.createDatabase(), (pg) => {
      const later = { sql: 'SELECT count(*) FROM items WHERE id > $1', params: [0] };
      expect(() => pg.run([{ sql: 'BEGIN' }, { sql: 'SELEC 1' }, later])).toThrow(PostgresError);
      pg.query('ROLLBACK');
      // had `later` been taken for prepared, its Bind would name a statement the server never had
      expect(pg.run([{ sql: 'BEGIN' }, insert(4), later, { sql: 'COMMIT' }])[2]!.rows).toEqual([[1]]);
      expect(pg.run([{ sql: 'BEGIN' }, later, { sql: 'COMMIT' }])[1]!.rows).toEqual([[1]]);
      // parsed, then failed as it ran: prepared all the same (a second Parse of its name would be refused)
      const bare = (id: number): { sql: string; params: unknown[] } => ({
        sql: 'INSERT INTO items (id) VALUES ($1)',
        params: [id],
      });
      expect(() => pg.run([{ sql: 'BEGIN' }, bare(4)])).toThrow(PostgresError);
      pg.query('ROLLBACK');
      pg.run([{ sql: 'BEGIN' }, bare(5), { sql: 'COMMIT' }]);
      expect(ids(pg)).toEqual([4, 5]);
    });
  });

  it('outside a transaction block run one at a time: those before a failure stay, those after do not run', () => {
    withConnection(cluster.createDatabase(), (pg) => {
      expect(() => pg.run([insert(1), insert(1), insert(2)])).toThrow(PostgresError);
      expect(ids(pg)).toEqual([1]);
    });
  });
});
