import type { LinkPresence } from '../gateway/links-elsewhere.js';
import type { DeviceClaim, HeldLink, LeaseKeeper, PresenceStore } from '../resources/storage/presence-store.js';

export interface PresenceLeasesOptions {
  store: PresenceStore;
  /** this replica's id (new at each start) */
  replica: string;
  /** how long the replica's links stay live without a renewal */
  leaseMs: number;
  renewEveryMs: number;
  /**
   * With a store that renews from its own thread (PresenceStore.keepLease): the renewals stop once the main thread
   * has been silent this long; default 2 leases
   */
  mainSilenceMs?: number;
  /**
   * Releases links that ended here and marks their devices Offline, in one transaction, each unless another
   * replica claimed the device since (offline-marking.ts, releaseEndedLinks); throws when it could not
   */
  releaseEnded(links: readonly HeldLink[]): void;
  /** a newer connection of the device is on another replica: drop the link here without marking it Offline */
  onTakenOver(device: string): void;
  /** the lease expired before a renewal (the database was out of reach): every link here must be dropped */
  onLeaseLost(): void;
  onError(err: unknown, what: string): void;
}

/** A link held here; `generation` is known once its claim is stored. */
interface Link {
  generation: number | undefined;
  /** writes the device Online: once its claim is stored (see connected) */
  markOnline: () => void;
  /** the link ended while its claim was out: released once the claim is stored (marked Offline if that fails) */
  endedWhileClaiming?: () => void;
  /** the newest generation claimed elsewhere that was announced while this link's claim was out */
  claimedElsewhere?: number;
}

/**
 * This replica's side of the presence record: claims each device link it opens (batched: one statement per turn
 * for all the links opened meanwhile), renews its one lease (which keeps all of its links live), releases links
 * as they end (marking the device Offline in the same transaction, unless a newer link of it was claimed
 * elsewhere), and drops a link when told that another replica claimed the device (newest connection wins).
 */
export class PresenceLeases implements LinkPresence {
  private readonly held = new Map<string, Link>();
  private claims = new Map<string, Link>();
  private releases: HeldLink[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private flushing: Promise<void> | undefined;
  private renewal: NodeJS.Timeout | undefined;
  private keeper: LeaseKeeper | undefined;
  private address: string | undefined;
  private closed = false;
  /** the last flush failed: the next one waits for the renewal timer instead of following at once */
  private failing = false;

  constructor(private readonly options: PresenceLeasesOptions) {}

  /** Registers the replica at `address` (where the others relay to) and starts renewing its lease. */
  async start(address: string): Promise<void> {
    this.address = address;
    const { store, replica, leaseMs } = this.options;
    await store.register(replica, address, leaseMs);
    await store.listenTakeovers((from, links) => this.takenOver(from, links));
    const { renewEveryMs } = this.options;
    // renewed off the main thread when the store can, so that long synchronous work here does not lapse the lease
    this.keeper = store.keepLease?.({
      replica,
      leaseMs,
      everyMs: renewEveryMs,
      mainSilenceMs: this.options.mainSilenceMs ?? 2 * leaseMs,
      onRenewal: (renewed) => void this.renewed(renewed),
      onError: (err) => this.options.onError(err, 'renewing the presence lease'),
    });
    if (this.keeper === undefined) {
      this.renewal = setInterval(() => void this.renew(), renewEveryMs);
      this.renewal.unref();
    }
    this.schedule();
  }

  /**
   * `markOnline` runs once the claim is stored, while the link is still held here: a sweep marking the device's
   * previous replica's links Offline either saw this claim, or held the claim back until its own write committed,
   * which this Online write then follows.
   */
  connected(device: string, markOnline: () => void): void {
    const link: Link = { generation: undefined, markOnline };
    this.held.set(device, link);
    this.claims.set(device, link);
    this.schedule();
  }

  /**
   * `markOffline` runs only for a link the record never named (its claim was not stored); one it names is marked
   * Offline by its release (releaseEnded), in the transaction that checks that no other replica claimed it since.
   */
  disconnected(device: string, markOffline: () => void): void {
    const link = this.held.get(device);
    if (link === undefined) return; // taken over by another replica, or dropped with a lapsed lease
    this.held.delete(device);
    if (this.claims.get(device) === link) {
      // never claimed: the record still names whoever held it before (or nobody)
      this.claims.delete(device);
      return markOffline();
    }
    if (link.generation === undefined) link.endedWhileClaiming = markOffline;
    else this.releases.push({ device, generation: link.generation });
    this.schedule();
  }

  /** Stops renewing and removes this replica's record (its links were closed and marked Offline by the gateway). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.renewal);
    await this.keeper?.stop();
    if (this.scheduled) clearImmediate(this.scheduled);
    await this.flushing;
    try {
      await this.options.store.leave(this.options.replica);
    } catch (err) {
      this.options.onError(err, 'leaving the presence record');
    }
  }

  private schedule(): void {
    if (this.address === undefined || this.closed) return;
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      void this.flush();
    });
  }

  /** Writes the claims and releases gathered since the last flush; one flush at a time. */
  private async flush(): Promise<void> {
    if (this.flushing !== undefined) return;
    const claims = this.claims;
    const releases = this.releases;
    this.claims = new Map();
    this.releases = [];
    const run = async (): Promise<void> => {
      if (claims.size > 0) await this.claim(claims);
      if (releases.length > 0) this.release(releases);
    };
    this.failing = false;
    this.flushing = run();
    await this.flushing;
    this.flushing = undefined;
    if (!this.failing && (this.claims.size > 0 || this.releases.length > 0)) this.schedule();
  }

  private async claim(claims: Map<string, Link>): Promise<void> {
    const { store, replica } = this.options;
    let claimed: DeviceClaim[];
    try {
      claimed = await store.claim(replica, [...claims.keys()]);
    } catch (err) {
      this.options.onError(err, 'claiming device links');
      this.failing = true;
      // the links stay held here; the ones that are still open are claimed again at the next renewal
      for (const [device, link] of claims) {
        if (this.held.get(device) === link) this.claims.set(device, link);
        else link.endedWhileClaiming?.();
      }
      return;
    }
    const takenFrom = new Map<string, HeldLink[]>();
    for (const { device, generation, previous } of claimed) {
      const link = claims.get(device);
      if (link === undefined) continue;
      link.generation = generation;
      if (link.claimedElsewhere !== undefined && link.claimedElsewhere > generation) {
        // a racing claim elsewhere stored after this one and told us before this claim's answer came back
        this.supersede(device, link);
      } else if (link.endedWhileClaiming !== undefined) {
        this.releases.push({ device, generation });
      } else if (this.held.get(device) === link) {
        link.markOnline();
      }
      if (previous !== null && previous !== replica) {
        let links = takenFrom.get(previous);
        if (!links) takenFrom.set(previous, (links = []));
        links.push({ device, generation });
      }
    }
    for (const [from, links] of takenFrom) {
      await store.announceTakeovers(from, links).catch((err) => this.options.onError(err, 'announcing takeovers'));
    }
  }

  private release(releases: readonly HeldLink[]): void {
    try {
      this.options.releaseEnded(releases);
    } catch (err) {
      this.options.onError(err, 'releasing device links');
      this.failing = true;
      this.releases.unshift(...releases); // tried again at the next renewal
    }
  }

  private takenOver(from: string, links: readonly HeldLink[]): void {
    if (from !== this.options.replica) return;
    for (const { device, generation } of links) {
      const link = this.held.get(device);
      if (link === undefined) continue;
      if (link.generation === undefined) {
        // this link's claim is out: the newer of the two claims wins once its answer is known
        link.claimedElsewhere = Math.max(link.claimedElsewhere ?? 0, generation);
        continue;
      }
      // a link opened here after that claim has a claim of its own, newer still
      if (link.generation < generation) this.supersede(device, link);
    }
  }

  private supersede(device: string, link: Link): void {
    if (this.held.get(device) !== link) return;
    this.held.delete(device);
    this.options.onTakenOver(device);
  }

  private async renew(): Promise<void> {
    const { store, replica, leaseMs } = this.options;
    let renewed: boolean;
    try {
      renewed = await store.renew(replica, leaseMs);
    } catch (err) {
      this.options.onError(err, 'renewing the presence lease');
      return;
    }
    await this.renewed(renewed);
  }

  /** After a renewal: what failed meanwhile is tried again, or, when the lease had expired, every link goes. */
  private async renewed(renewed: boolean): Promise<void> {
    const { store, replica, leaseMs } = this.options;
    if (renewed) {
      this.schedule(); // what failed to be written is tried again
      await store
        .listenTakeovers((from, links) => this.takenOver(from, links))
        .catch((err: unknown) => this.options.onError(err, 'listening for takeovers'));
      return;
    }
    if (this.closed || this.address === undefined) return;
    // its links go, and the devices connect again. Their presence rows still name this replica, which registers
    // again under the same id, so a sweep finds them only if it ran in between: a device that does not come back
    // (it powered off meanwhile) would stay Online. Each link is released as if it ended: Offline, unless its
    // device was claimed again since (a reconnection, here or elsewhere, stores a newer generation).
    for (const [device, link] of this.held) {
      if (link.generation !== undefined) this.releases.push({ device, generation: link.generation });
      else if (!this.claims.has(device)) link.endedWhileClaiming = () => {}; // claim out: released once stored
    }
    this.held.clear();
    this.claims.clear();
    this.options.onLeaseLost();
    try {
      await store.register(replica, this.address, leaseMs);
    } catch (err) {
      this.options.onError(err, 'registering again after the lease expired');
    }
    this.schedule();
  }
}
