import { createRequire } from 'node:module';
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';

/** One statement: `$1`-style parameters, sent untyped (PostgreSQL infers each from where it stands). */
export interface PgStatement {
  sql: string;
  params?: readonly unknown[];
}

export interface PgResult {
  /** each row as an array of its columns, in select order */
  rows: unknown[][];
  rowCount: number;
}

/** A PostgreSQL error as the server reported it (`code` is its SQLSTATE). */
export class PostgresError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    /** which statement of the request failed (those before it ran) */
    readonly statementIndex = 0,
  ) {
    super(message);
    this.name = 'PostgresError';
  }
}

/** What became of one request of statements: their results, or the failure that stopped them. */
export type PgOutcome = { results: PgResult[]; error?: undefined } | { results?: undefined; error: PostgresError };

interface Reply {
  /** the id of the request it answers */
  id: number;
  results?: PgResult[];
  error?: { message: string; code?: string; at?: number };
}

/** How long a statement may take before the caller gives up on the worker (a hung server, a dead worker). */
const STATEMENT_TIMEOUT_MS = 120_000;

/*
 * The worker owns one `pg` connection. Each request is a list of statements run in order (one round trip from
 * the caller however many there are); the reply goes back on its own port and the shared flag wakes the caller.
 * Statements are prepared by name once per connection (the first 2,000 texts). int8 and numeric come back as JS numbers, JSON and
 * JSONB as their text (the caller parses it when it wants the document).
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const pg = require(workerData.driver);
const flag = new Int32Array(workerData.flag);
const port = workerData.port;
const raw = (v) => v;
const types = {
  getTypeParser(oid, format) {
    if (oid === 20 || oid === 1700 || oid === 701 || oid === 700) return (v) => Number(v);
    if (oid === 114 || oid === 3802) return raw;
    return pg.types.getTypeParser(oid, format);
  },
};
const client = new pg.Client({ connectionString: workerData.url, types });
const names = new Map();
const MAX_PREPARED = 2000; // statements beyond these (one-off filters) run unnamed
const connected = client.connect();
let failed;
client.on('error', (err) => { failed = err; });
function reply(message) {
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}
// one request at a time, in the order they came: a request posted before the last one's reply ran after it
let previous = Promise.resolve();
port.on('message', (request) => {
  previous = previous.then(() => handle(request));
});
async function handle(request) {
  if (request.close) {
    try { await client.end(); } catch {}
    reply({ id: request.id, results: [] });
    port.close();
    return;
  }
  const results = [];
  try {
    await connected;
    if (failed) throw failed;
    for (const statement of request.statements) {
      let name = names.get(statement.sql);
      if (name === undefined && names.size < MAX_PREPARED) {
        name = 's' + names.size;
        names.set(statement.sql, name);
      }
      const result = await client.query({ name, text: statement.sql, values: statement.params || [], rowMode: 'array' });
      results.push({ rows: result.rows, rowCount: result.rowCount || 0 });
    }
    reply({ id: request.id, results });
  } catch (err) {
    reply({ id: request.id, error: { message: String(err && err.message ? err.message : err), code: err && err.code, at: results.length } });
  }
}
`;

/**
 * A PostgreSQL connection used synchronously, as the resource engine uses SQLite: the `pg` driver runs in a
 * worker thread, and the caller blocks on a shared flag (Atomics.wait) until the worker's reply is there, then
 * takes it off the port without going through the event loop (receiveMessageOnPort). One connection, so the
 * statements of a transaction are the caller's alone. Statements may also be posted without waiting (`post`): the
 * worker runs every request in the order it was sent, and the next wait takes their replies too (`settle`).
 */
export class SyncPostgres {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private closed = false;
  private requests = 0;
  /** the ids of requests posted whose replies were not taken yet, in the order they were sent */
  private inFlight: number[] = [];

  /** `timeoutMs`: how long a request may take before the caller gives up on it (default 120 s) */
  constructor(
    readonly url: string,
    private readonly timeoutMs = STATEMENT_TIMEOUT_MS,
  ) {
    const driver = createRequire(import.meta.url).resolve('pg');
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver, url, flag: this.flag.buffer, port: channel.port2 },
      transferList: [channel.port2],
    });
    this.worker.unref();
    this.port.unref();
  }

  /** Runs one statement; its rows as arrays of columns. */
  query(sql: string, params: readonly unknown[] = []): PgResult {
    return this.run([{ sql, params }])[0]!;
  }

  /**
   * Runs the statements in order in one round trip, after those posted before; stops at the first that fails. The
   * first failure of theirs or of these is thrown.
   */
  run(statements: readonly PgStatement[]): PgResult[] {
    const outcomes = this.settle(statements);
    const failed = outcomes.find((outcome) => outcome.error !== undefined);
    if (failed?.error) throw failed.error;
    return outcomes[outcomes.length - 1]!.results ?? [];
  }

  /**
   * Sends statements to run after those sent before, without waiting for them: the caller goes on meanwhile. What
   * became of them is taken by the next `settle` (or `run`).
   */
  post(statements: readonly PgStatement[]): void {
    if (this.closed) throw new Error('the PostgreSQL connection is closed');
    this.inFlight.push(this.send({ statements }));
  }

  /**
   * Sends `statements` and waits for them and every request posted before: what became of each, in the order they
   * were sent (these last). A request after one that failed still ran (in a transaction, PostgreSQL refuses it).
   */
  settle(statements: readonly PgStatement[]): PgOutcome[] {
    if (this.closed) throw new Error('the PostgreSQL connection is closed');
    const ids = this.inFlight;
    this.inFlight = [];
    ids.push(this.send({ statements }));
    return this.await(ids).map((reply) =>
      reply.error
        ? { error: new PostgresError(reply.error.message, reply.error.code, reply.error.at) }
        : { results: reply.results ?? [] },
    );
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.exchange({ close: true });
    } finally {
      void this.worker.terminate();
    }
  }

  /** Sends `request` and blocks until its reply is there. */
  private exchange(request: object): Reply {
    return this.await([this.send(request)])[0]!;
  }

  private send(request: object): number {
    const id = ++this.requests;
    this.port.postMessage({ ...request, id });
    return id;
  }

  /**
   * Blocks until the replies to the requests `ids` are there, in that order. A reply to an earlier request that was
   * given up on is dropped rather than taken for one of these; a wake-up without them waits again until the deadline.
   */
  private await(ids: readonly number[]): Reply[] {
    const wanted = new Set(ids);
    const replies = new Map<number, Reply>();
    const deadline = Date.now() + this.timeoutMs;
    while (replies.size < wanted.size) {
      const message = receiveMessageOnPort(this.port);
      if (message !== undefined) {
        const reply = message.message as Reply;
        if (wanted.has(reply.id)) replies.set(reply.id, reply);
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('PostgreSQL did not answer (timed out)');
      // the worker posts a reply before it raises the flag: once the flag is up, the reply is on the port (the flag
      // is lowered before the port is looked at again, so a reply posted meanwhile is not slept through)
      Atomics.wait(this.flag, 0, 0, left);
      Atomics.store(this.flag, 0, 0);
    }
    return ids.map((id) => replies.get(id)!);
  }
}
