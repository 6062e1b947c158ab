import type { ArtifactHoldRecords } from '../resources/storage/coordination.js';

export interface ArtifactHoldLeasesOptions {
  records: ArtifactHoldRecords;
  /** this replica's name in the records (new at each start) */
  holder: string;
  /** how long a hold outlives its last renewal: how long this replica may be cut off without losing its holds */
  leaseMs: number;
  renewEveryMs: number;
  onError(err: unknown): void;
}

/** Two minutes: far longer than a coordination connection takes to come back, renewed every 30 s. */
export const DEFAULT_ARTIFACT_HOLD_LEASE_MS = 120_000;
export const DEFAULT_ARTIFACT_HOLD_RENEW_MS = 30_000;

/**
 * This replica's holds of the artifacts it serves, as records with a lease that it renews while it serves them.
 * The artifacts' advisory locks go with a lost coordination connection; these records do not, so garbage
 * collection on another replica keeps an artifact served here until this replica releases it or has been out
 * of reach of the database for a whole lease. A record that could not be written is written at the next renewal.
 */
export class ArtifactHoldLeases {
  private readonly serving = new Set<string>();
  private readonly renewal: NodeJS.Timeout;

  constructor(private readonly options: ArtifactHoldLeasesOptions) {
    this.renewal = setInterval(() => void this.renew(), options.renewEveryMs);
    this.renewal.unref();
  }

  /** Records the hold of `sha256`; settles once written (or failed: it is tried again at the next renewal). */
  async hold(sha256: string): Promise<void> {
    this.serving.add(sha256);
    const { records, holder, leaseMs } = this.options;
    await records.record(holder, [sha256], leaseMs).catch(this.options.onError);
  }

  /** Removes the hold of `sha256` (left to expire when the database cannot be reached). */
  async release(sha256: string): Promise<void> {
    this.serving.delete(sha256);
    await this.options.records.forget(this.options.holder, sha256).catch(this.options.onError);
  }

  /** Whether another replica holds `sha256` (rejects when that cannot be known). */
  heldElsewhere(sha256: string): Promise<boolean> {
    return this.options.records.heldElsewhere(sha256, this.options.holder);
  }

  stop(): void {
    clearInterval(this.renewal);
  }

  private async renew(): Promise<void> {
    if (this.serving.size === 0) return;
    const { records, holder, leaseMs } = this.options;
    await records.record(holder, [...this.serving], leaseMs).catch(this.options.onError);
  }
}
