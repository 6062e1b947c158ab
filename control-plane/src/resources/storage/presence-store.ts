/** A device link this replica holds: the generation its claim got (a newer claim anywhere has a higher one). */
export interface HeldLink {
  device: string;
  generation: number;
}

export interface DeviceClaim extends HeldLink {
  /** the replica that held the device's link before this claim (null: none, or its lease was swept) */
  previous: string | null;
}

/** Where a device's link is: the replica holding it and the address other replicas relay commands to. */
export interface LinkHolder {
  replica: string;
  address: string;
}

/** A device whose replica's lease expired (the replica died): it is Offline unless it was claimed again since. */
export interface ExpiredLink {
  device: string;
  /** the replica whose lease expired */
  replica: string;
  /** the generation of the dead replica's claim (any later claim of the device, anywhere, has a higher one) */
  generation: number;
}

/**
 * The presence rows of expired or ended links, checked and locked inside the engine's open transaction, so that
 * an Offline write and its check of the presence record are one decision (adapter:
 * storage/postgres/pg-unclaimed-links.ts).
 */
export interface UnclaimedLinks {
  /**
   * Of these links, those whose presence row still holds the generation the sweep read (nobody claimed the
   * device since), their rows locked until the transaction ends: a claim racing the sweep either committed
   * before and is seen here, or waits for the commit. A link whose row is gone is left out: whoever removed
   * it (its replica's release, a clean stop, an earlier sweep) marked the device Offline.
   */
  lock(links: readonly ExpiredLink[]): ExpiredLink[];
  /**
   * Of these links `replica` held, which just ended there, the devices whose presence row still holds that claim
   * (same generation), their rows deleted in the open transaction: a device claimed by another replica since is
   * left to it; a claim racing this waits for the commit, then stores the device anew.
   */
  take(replica: string, links: readonly HeldLink[]): string[];
}

/** What a lease keeper renews, how often, and whom it tells. */
export interface LeaseKeeping {
  replica: string;
  leaseMs: number;
  everyMs: number;
  /** the renewals stop while the main thread has been silent this long (wedged: let its lease run out) */
  mainSilenceMs: number;
  /** after each renewal: false when the lease had expired (the same as PresenceStore.renew) */
  onRenewal(renewed: boolean): void;
  onError(err: unknown): void;
}

/** Renews a lease on its own, off the main thread (adapter: storage/postgres/pg-lease-keeper.ts). */
export interface LeaseKeeper {
  stop(): Promise<void>;
}

/**
 * The shared record of which replica holds each device's link (adapter: storage/postgres/pg-presence.ts). A link
 * lives as long as its replica's lease: renewing the replica renews all of its devices in one statement.
 */
export interface PresenceStore {
  /** the secret replicas authenticate each other's relay links with (made by the first replica) */
  clusterSecret(): Promise<string>;
  register(replica: string, address: string, leaseMs: number): Promise<void>;
  /** false when the lease expired (a sweep may be marking its devices Offline) or was swept */
  renew(replica: string, leaseMs: number): Promise<boolean>;
  /** Renews the lease every `everyMs` from its own thread and connection, until stopped (when the store can). */
  keepLease?(keeping: LeaseKeeping): LeaseKeeper;
  /** Takes the devices' links for `replica` (distinct names), newest claim winning. */
  claim(replica: string, devices: readonly string[]): Promise<DeviceClaim[]>;
  locate(device: string): Promise<LinkHolder | undefined>;
  /** The links of the replicas whose lease expired (until `forget` removes them: a sweep can be done again). */
  expired(): Promise<ExpiredLink[]>;
  /** Removes these replicas, if their lease is still expired, with their devices' links. */
  forget(replicas: readonly string[]): Promise<void>;
  /** Tells the replica `from` that the links were claimed elsewhere (a NOTIFY). */
  announceTakeovers(from: string, links: readonly HeldLink[]): Promise<void>;
  listenTakeovers(onTakeover: (from: string, links: HeldLink[]) => void): Promise<void>;
  /** Removes this replica and its devices' links (a clean stop: the gateway marked them Offline). */
  leave(replica: string): Promise<void>;
  close(): Promise<void>;
}
