import type { ApiError } from '@outpost/shared';

/** The remote sessions each API key has open, so that a revoked key's sessions end at once (like its watch streams). */
export class SessionsByKey {
  private readonly byKey = new Map<string, Set<(error: ApiError) => void>>();

  /** Registers a session of `keyId` that `end` ends; returns its removal. */
  add(keyId: string, end: (error: ApiError) => void): () => void {
    let ends = this.byKey.get(keyId);
    if (ends === undefined) this.byKey.set(keyId, (ends = new Set()));
    ends.add(end);
    return () => {
      ends.delete(end);
      if (ends.size === 0 && this.byKey.get(keyId) === ends) this.byKey.delete(keyId);
    };
  }

  /** The keys with a session open (a replica that did not listen for a while re-checks them: revoked meanwhile?). */
  keyIds(): string[] {
    return [...this.byKey.keys()];
  }

  /** Ends every open session of `keyId` with `error`; returns how many there were. */
  endAll(keyId: string, error: ApiError): number {
    const ends = this.byKey.get(keyId);
    if (ends === undefined) return 0;
    this.byKey.delete(keyId);
    for (const end of ends) end(error);
    return ends.size;
  }
}
