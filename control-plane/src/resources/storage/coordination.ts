import type { PresenceStore, UnclaimedLinks } from './presence-store.js';

/**
 * One session of a replica with the database the replicas share, for coordinating them (control-plane/src/cluster):
 * wake-ups by channel and session locks. Apart from the engine's own connection, whose statements must not wait on
 * another replica. A session lock is held until it is unlocked or the session ends (it ends with the process).
 * Adapter: storage/postgres/pg-coordination.ts (LISTEN/NOTIFY and advisory locks).
 */
export interface CoordinationSession {
  /** false once the session was lost or closed (every lock it held is gone then) */
  readonly open: boolean;
  /** Calls `onPayload` with each notice on `channel` (channel: letters, digits and underscores). */
  listen(channel: string, onPayload: (payload: string) => void): Promise<void>;
  notify(channel: string, payload: string): Promise<void>;
  /** Takes the lock `key` unless another session holds it; whether this one holds it now. */
  tryLock(key: number): Promise<boolean>;
  /** Takes the shared lock `key` (any number of sessions hold it together). */
  lockShared(key: number): Promise<void>;
  /** How many sessions of this database hold the lock `key`, this one included. */
  holders(key: number): Promise<number>;
  /** Shows this session alive to the others (`endSilentHolder` reads when it was last). */
  touch(): Promise<void>;
  /** Ends the other session holding the lock `key` when it was silent for `silentMs`; whether one was ended. */
  endSilentHolder(key: number, silentMs: number): Promise<boolean>;
  unlock(key: number): Promise<void>;
  /** Takes the lock of the two-part key (`space`, `key`: 32-bit integers), shared or exclusive, unless it conflicts. */
  tryLockPair(space: number, key: number, shared: boolean): Promise<boolean>;
  unlockPair(space: number, key: number, shared: boolean): Promise<void>;
  close(): Promise<void>;
}

/** Where the replicas' holds of the artifacts they serve are kept; one statement at a time, in call order. */
export interface ArtifactHoldRecords {
  /** Records (or renews) `holder`'s holds of `sha256s` for `leaseMs` from now. */
  record(holder: string, sha256s: readonly string[], leaseMs: number): Promise<void>;
  forget(holder: string, sha256: string): Promise<void>;
  /** Whether a holder other than `holder` has a live hold of `sha256`. */
  heldElsewhere(sha256: string, holder: string): Promise<boolean>;
}

/** The artifact hold records of one replica's connection (adapter: storage/postgres/pg-artifact-holds.ts). */
export interface ArtifactHoldStore extends ArtifactHoldRecords {
  /** Removes every hold of `holder` (it stops serving) and ends the connection. */
  close(holder: string): Promise<void>;
}

/**
 * What several control planes sharing one store need from it to work as replicas (control-plane/src/cluster),
 * handed out by the store that can be shared (Storage.coordination: PostgreSQL's; a SQLite file has one process).
 * Each `open…` makes connections of its own; `onError` hears of the failures nobody waits for.
 */
export interface Coordination {
  /** Opens a coordination session; `onEnd` is told once when it is lost or closed. */
  connect(onEnd: (err: Error | undefined) => void): Promise<CoordinationSession>;
  /** Opens the record of which replica holds each device's link. */
  openPresence(onError: (err: Error) => void): Promise<PresenceStore>;
  /** Opens the records of which artifacts each replica serves. */
  openArtifactHolds(onError: (err: Error) => void): Promise<ArtifactHoldStore>;
  /** The presence rows locked inside the engine's open transaction (on the engine's own connection). */
  readonly unclaimedLinks: UnclaimedLinks;
}
