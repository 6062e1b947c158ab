import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './open-database.js';

/** What the resource engine tells about its commits (see ResourceEngine's `checkpoints` option). */
export interface CommitCheckpoints {
  /** Called inside a transaction that wrote much, just before it commits. */
  deferCheckpoint(): void;
  /** Called once the transaction ended, committed or rolled back. */
  transactionEnded(committed: boolean): void;
}

export interface WalCheckpointer extends CommitCheckpoints {
  /** How many checkpoints the worker has finished. */
  finished(): number;
  /** Stops the worker; call before closing `db`. */
  stop(): Promise<void>;
}

/** SQLite's default: a commit that leaves the log at this many pages or more checkpoints it. */
const COMMIT_CHECKPOINT_PAGES = 1000;

/*
 * The worker's own connection to the same file. PASSIVE neither waits for nor blocks the writer or readers:
 * it copies the frames no reader still needs, then syncs the database file (synchronous=FULL).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = FULL');
parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  let error;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    error = String(err && err.message ? err.message : err);
  }
  parentPort.postMessage({ done: true, error });
});
`;

/**
 * Takes the checkpoint of a large commit off the write path. SQLite's committing connection copies the log
 * into the database file as part of the commit once the log passes 1,000 pages; after a transaction that
 * rewrote tens of thousands of rows (a plan change recomputing every limit) that means writing all of it a
 * second time, with another fsync, before the commit returns. For such a transaction the connection's own
 * checkpoint is switched off just before it commits, and a worker thread with its own connection copies the
 * log on another core while the connection goes on. Once the worker is done the connection checkpoints on
 * commit again, as SQLite does by default, so steady small writes keep the log short themselves (a
 * checkpointer running beside steady writes rarely finds the log wholly copied at the moment a write begins,
 * which is when SQLite starts it over).
 */
export function startWalCheckpointer(
  db: Db,
  file: string,
  onError: (message: string) => void = () => {},
): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file } });
  worker.unref();
  let alive = true;
  let deferred = false;
  let busy = false;
  let again = false;
  let finished = 0;
  const commitCheckpoints = (on: boolean): void => {
    if (db.open) db.pragma(`wal_autocheckpoint = ${on ? COMMIT_CHECKPOINT_PAGES : 0}`);
  };
  const run = (): void => {
    if (!alive) return commitCheckpoints(true);
    busy = true;
    worker.postMessage('checkpoint');
  };
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  void exited.then(() => {
    alive = false;
    commitCheckpoints(true);
  });
  worker.on('message', (message: { done?: boolean; error?: string }) => {
    if (message.error) onError(message.error);
    finished++;
    busy = false;
    if (again) {
      again = false;
      run();
    } else commitCheckpoints(true);
  });
  worker.on('error', (err) => onError(err.message));
  return {
    deferCheckpoint: () => {
      if (!alive) return;
      deferred = true;
      commitCheckpoints(false);
    },
    transactionEnded: (committed) => {
      if (!deferred) return;
      deferred = false;
      if (!committed) {
        if (!busy) commitCheckpoints(true);
      } else if (busy) again = true;
      else run();
    },
    finished: () => finished,
    stop: async () => {
      if (alive) worker.postMessage('stop');
      await exited;
    },
  };
}
