import { resourceExhausted } from '@outpost/shared';

export interface StreamLimits {
  /** open streams one API key may hold */
  perKey: number;
  /** open streams the server holds */
  perServer: number;
}

/** The defaults of --watch-streams-per-key and --watch-streams-per-server (the benchmark opens 1,000 with one key). */
export const DEFAULT_STREAM_LIMITS: Readonly<StreamLimits> = { perKey: 2_000, perServer: 10_000 };

/**
 * Counts the open watch streams, per API key and in all, and refuses one beyond either limit with
 * RESOURCE_EXHAUSTED (429): each stream holds a connection and up to its buffer of memory.
 */
export class StreamAdmission {
  private readonly perOwner = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: StreamLimits) {}

  /** Admits a stream of `owner` (an API key's name) or throws; the function returned ends it (once). */
  admit(owner: string): () => void {
    const held = this.perOwner.get(owner) ?? 0;
    if (held >= this.limits.perKey) {
      throw resourceExhausted(
        `${owner} has ${held} watch streams open, the most one API key may (--watch-streams-per-key): close one first`,
      );
    }
    if (this.total >= this.limits.perServer) {
      throw resourceExhausted(
        `the server has ${this.total} watch streams open, the most it takes (--watch-streams-per-server): try again later`,
      );
    }
    this.perOwner.set(owner, held + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.perOwner.get(owner) ?? 1) - 1;
      if (left === 0) this.perOwner.delete(owner);
      else this.perOwner.set(owner, left);
    };
  }

  get open(): number {
    return this.total;
  }
}
