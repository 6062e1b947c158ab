import { randomUUID } from 'node:crypto';
import type { ResourceEngine } from '../resources/resource-engine.js';
import type { ArtifactHoldStore, Coordination, CoordinationSession } from '../resources/storage/coordination.js';
import type { Logger } from '../server/logger.js';
import type { SharedArtifactLocks } from '../os/artifact-holds.js';
import { clusterArtifactLocks } from './artifact-locks.js';
import {
  ArtifactHoldLeases,
  DEFAULT_ARTIFACT_HOLD_LEASE_MS,
  DEFAULT_ARTIFACT_HOLD_RENEW_MS,
} from './artifact-hold-leases.js';
import { Leadership } from './leadership.js';
import type { LeaderJob } from './leadership.js';
import { WatchFollower } from './watch-follower.js';

/** The NOTIFY channel on which a replica announces the log position it committed up to. */
export const CHANGES_CHANNEL = 'outpost_changes';
/** The session advisory lock whose holder is the leader ("lead"; the schema's migrations lock "outp"). */
export const LEADER_LOCK_KEY = 0x6c656164;
/** The shared session advisory lock every live replica holds ("live"): how many replicas are up. */
export const LIVE_LOCK_KEY = 0x6c697665;
/** How often a replica looks for changes it was not told of, and tries to become the leader. */
export const DEFAULT_CLUSTER_POLL_MS = 1000;
/**
 * A leader that started no statement on its coordination session for this long (it shows it is alive at each
 * poll) is frozen or cut off: another replica ends its session and leads. At least 10 polls, so that a leader
 * whose event loop is merely slow for a while under load keeps leading.
 */
const leaderSilenceMs = (pollMs: number): number => Math.max(10 * pollMs, 10_000);

export interface ClusterMemberOptions {
  engine: ResourceEngine;
  /** how the replicas coordinate in the store they share (the engine's: ResourceEngine.coordination) */
  coordination: Coordination;
  /** background work that runs on one replica at a time */
  jobs?: readonly LeaderJob[];
  pollMs?: number;
  /** how long a silent leader keeps the leadership (default: leaderSilenceMs of the poll) */
  leaderSilenceMs?: number;
  logger: Logger;
}

export interface ClusterMember {
  readonly isLeader: boolean;
  /** no other replica was up when this one joined (so no device link can be held anywhere) */
  readonly aloneAtStart: boolean;
  /** the log position up to which every change is published on this replica */
  readonly position: number;
  /** adds background jobs to run while this replica leads (started at once if it leads now) */
  lead(jobs: readonly LeaderJob[]): void;
  /** which artifacts the replicas are serving (their garbage collection skips those) */
  readonly artifactLocks: SharedArtifactLocks;
  /**
   * Calls `onPayload` with each NOTIFY on `channel` (letters, digits, underscores), listening again on every new
   * coordination connection; `onConnected` runs once each connection listens (a notice sent while none did is lost).
   */
  subscribe(channel: string, onPayload: (payload: string) => void, onConnected?: () => void): void;
  /** NOTIFY on `channel`; rejects while this replica has no coordination connection */
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Makes this control plane one replica of several on one PostgreSQL database: its watchers see the others'
 * changes (WatchFollower, woken by NOTIFY and by a poll), and it runs the leader's jobs while it holds the
 * leader lock (Leadership). Both use one asynchronous connection besides the engine's; when it is lost, the
 * jobs stop, the poll keeps the watchers fed, and the connection is made again.
 */
export async function joinCluster(options: ClusterMemberOptions): Promise<ClusterMember> {
  const { engine, logger } = options;
  const onError = (err: unknown, what: string): void => logger.error({ err }, `cluster: ${what} failed`);
  let coordination: CoordinationSession | undefined;
  let closing = false;
  const subscriptions: { channel: string; onPayload: (payload: string) => void; onConnected?: () => void }[] = [];
  const reconnected: (() => void)[] = [];
  // one NOTIFY out at a time, of the newest position: commits made meanwhile are announced together
  let announced = 0;
  let newest = 0;
  let announcing = false;
  const announce = async (): Promise<void> => {
    announcing = true;
    while (newest > announced && coordination !== undefined) {
      announced = newest;
      await coordination.notify(CHANGES_CHANNEL, String(announced)).catch((err) => onError(err, 'announcing a commit'));
    }
    announcing = false;
  };
  const follower = new WatchFollower(engine, {
    announce: (position) => {
      newest = Math.max(newest, position);
      if (!announcing) void announce();
    },
    onError,
  });
  const pollMs = options.pollMs ?? DEFAULT_CLUSTER_POLL_MS;
  const silenceMs = options.leaderSilenceMs ?? leaderSilenceMs(pollMs);
  const leadership = new Leadership({
    tryLock: async () => coordination !== undefined && coordination.open && coordination.tryLock(LEADER_LOCK_KEY),
    showAlive: async () => coordination?.touch(),
    deposeSilent: async () => {
      if (coordination === undefined || !coordination.open) return false;
      const ended = await coordination.endSilentHolder(LEADER_LOCK_KEY, silenceMs);
      if (ended) logger.warn('cluster: the leader was silent too long (frozen or cut off): its session was ended');
      return ended;
    },
    jobs: options.jobs ?? [],
    onChange: (leader) =>
      logger.info({ leader }, leader ? 'cluster: this replica leads' : 'cluster: no longer the leader'),
    onError,
  });

  const connect = async (): Promise<void> => {
    const connection = await options.coordination.connect((err) => {
      if (coordination === connection) coordination = undefined;
      leadership.lost();
      if (err !== undefined && !closing) onError(err, 'the coordination connection');
    });
    try {
      await connection.lockShared(LIVE_LOCK_KEY);
      await connection.listen(CHANGES_CHANNEL, (payload) =>
        follower.wake(/^\d+$/.test(payload) ? Number(payload) : undefined),
      );
      for (const { channel, onPayload } of subscriptions) await connection.listen(channel, onPayload);
    } catch (err) {
      await connection.close();
      throw err;
    }
    coordination = connection;
    follower.wake(); // what was announced while nobody listened
    for (const { onConnected } of subscriptions) onConnected?.();
    for (const listener of reconnected) listener();
  };

  let aloneAtStart: boolean;
  let holds: ArtifactHoldStore;
  try {
    await connect();
    aloneAtStart = (await coordination!.holders(LIVE_LOCK_KEY)) === 1;
    holds = await options.coordination.openArtifactHolds((err) => onError(err, 'an artifact hold connection'));
  } catch (err) {
    follower.stop();
    await coordination?.close();
    throw err;
  }
  const holder = randomUUID();
  const holdLeases = new ArtifactHoldLeases({
    records: holds,
    holder,
    leaseMs: DEFAULT_ARTIFACT_HOLD_LEASE_MS,
    renewEveryMs: DEFAULT_ARTIFACT_HOLD_RENEW_MS,
    onError: (err) => onError(err, 'recording an artifact hold'),
  });
  await leadership.attempt();
  let connecting = false;
  const poll = setInterval(() => {
    follower.wake();
    if (coordination !== undefined) {
      void leadership.attempt();
      return;
    }
    if (connecting || closing) return;
    connecting = true;
    connect()
      .then(() => leadership.attempt())
      .catch((err) => onError(err, 'connecting to coordinate'))
      .finally(() => (connecting = false));
  }, pollMs);
  poll.unref();

  return {
    get isLeader() {
      return leadership.isLeader;
    },
    aloneAtStart,
    get position() {
      return follower.position;
    },
    lead: (jobs) => leadership.add(jobs),
    artifactLocks: clusterArtifactLocks(
      () => coordination,
      (listener) => reconnected.push(listener),
      holdLeases,
    ),
    subscribe(channel, onPayload, onConnected) {
      subscriptions.push({ channel, onPayload, ...(onConnected ? { onConnected } : {}) });
      const connection = coordination;
      if (connection === undefined) return;
      connection
        .listen(channel, onPayload)
        .then(() => onConnected?.())
        .catch((err) => onError(err, `listening on ${channel}`));
    },
    async notify(channel, payload) {
      if (coordination === undefined) throw new Error('no coordination connection');
      await coordination.notify(channel, payload);
    },
    async close() {
      closing = true;
      clearInterval(poll);
      follower.stop();
      leadership.lost();
      holdLeases.stop();
      await holds.close(holder).catch((err) => onError(err, 'removing the artifact holds'));
      await coordination?.close();
    },
  };
}
