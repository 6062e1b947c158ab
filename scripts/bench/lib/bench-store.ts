/** Where a benchmark's control plane keeps its resources. */
export interface BenchStore {
  kind: 'sqlite' | 'postgres';
  /**
   * An empty database for one control plane's resources, as its --database (undefined: SQLite in its data
   * folder, the default). With `--database <url>` there is one only.
   */
  freshDatabase(): string | undefined;
  /** Stops the throwaway cluster, when the run started one. */
  stop(): void;
}

/** The flags that choose a benchmark's store (for parseBenchFlags). */
export const BENCH_STORE_FLAGS = {
  database: {
    value: 'URL',
    help: 'keep the resources in this empty PostgreSQL database (postgres://…); default: SQLite in a temporary folder',
  },
  postgres: {
    help:
      'keep them in a throwaway PostgreSQL cluster started for the run (initdb into a temporary folder, loopback, ' +
      "fsync on; needs Debian's postgresql package)",
  },
} as const;

export interface BenchStoreFlags {
  database?: string | undefined;
  postgres: boolean;
}

/** Refuses `--postgres` with `--database` (through the command line's `fail`), before the run starts. */
export function checkStoreFlags(flags: BenchStoreFlags, fail: (message: string) => never): void {
  if (flags.postgres && flags.database !== undefined) fail('give --postgres or --database, not both');
}

/**
 * The store named on a benchmark's command line: `--database <url>` (an empty PostgreSQL database), or
 * `--postgres` for a throwaway cluster (the test suites' helper, with fsync on as SQLite's synchronous=FULL; a
 * new database in it for each control plane), else SQLite.
 */
export async function benchStoreOf(flags: BenchStoreFlags): Promise<BenchStore> {
  const database = flags.database;
  if (flags.postgres) {
    if (database !== undefined) throw new Error('give --postgres or --database, not both');
    const { startPostgresCluster } = await import('../../../control-plane/test/helpers/postgres-cluster.js');
    const cluster = await startPostgresCluster();
    let stopped = false;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      cluster.stop();
    };
    // however the run ends (its time limit, a failure, Ctrl-C), the server does not outlive it
    process.once('exit', stop);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        stop();
        process.exit(1);
      });
    }
    return { kind: 'postgres', freshDatabase: () => cluster.createDatabase(), stop };
  }
  let handedOut = false;
  const given = (): string | undefined => {
    if (handedOut && database !== undefined) throw new Error('--database names one database: this run needs more');
    handedOut = true;
    return database;
  };
  const kind = database === undefined || database.startsWith('sqlite:') ? 'sqlite' : 'postgres';
  return { kind, freshDatabase: given, stop: () => {} };
}
