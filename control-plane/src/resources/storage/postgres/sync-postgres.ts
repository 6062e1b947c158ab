import { createRequire } from 'node:module';
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { WORKER_SOURCE } from './sync-postgres-worker.js';

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
   * Runs the statements in order in one round trip, after those posted before; stops at the first that fails (inside
   * a transaction block they reach the server as one pipeline: see the worker's source). The
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
