/** One step of a store's schema: run once, in order, by the version it brings the database to. */
export interface Migration {
  version: number;
  /** what the step changes (for the log and for readers of the code) */
  description: string;
  /** The statements of the step; run in one transaction with the version record. */
  statements: readonly string[];
}

/** The migrations a database at `current` still needs, in order; refuses a database newer than this code. */
export function pendingMigrations(migrations: readonly Migration[], current: number): Migration[] {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  if (current > latest) {
    throw new Error(
      `the database has schema version ${current}, newer than this control plane knows (${latest}): upgrade the control plane`,
    );
  }
  return migrations.filter((m) => m.version > current).sort((a, b) => a.version - b.version);
}
