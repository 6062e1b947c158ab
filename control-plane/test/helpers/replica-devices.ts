import { deviceDefinition } from '@outpost/shared';
import type { Device } from '@outpost/shared';
import { releaseEndedLinks } from '../../src/cluster/offline-marking.js';
import type { HeldLink } from '../../src/resources/storage/presence-store.js';
import { StatusWriter } from '../../src/gateway/status-writer.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import type { ResourceHandle } from '../../src/resources/resource-handle.js';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { pgUnclaimedLinks } from '../../src/resources/storage/postgres/pg-unclaimed-links.js';

/** A replica's own engine on the shared database: its devices, its status writer, its release of ended links. */
export interface ReplicaDevices {
  devices: ResourceHandle<Device>;
  /** written only when the test flushes it (no timer writes behind its back) */
  status: StatusWriter;
  /** per release of ended links (in order), the devices it marked Offline and whose rows it removed */
  releases: string[][];
  /** PresenceLeasesOptions.releaseEnded, as cluster-links.ts wires it */
  releaseEnded(links: readonly HeldLink[]): void;
  close(): void;
}

export function replicaDevices(url: string, replica: string, onFlushFailed: (err: unknown) => void): ReplicaDevices {
  const storage = new PgStorage(url);
  const engine = new ResourceEngine(storage);
  const devices = engine.register<Device>(deviceDefinition);
  const status = new StatusWriter(devices, { flushDelayMs: 3_600_000, onFlushFailed });
  const unclaimed = pgUnclaimedLinks(storage);
  const releases: string[][] = [];
  return {
    devices,
    status,
    releases,
    releaseEnded(links) {
      const marking = {
        replica,
        devices,
        transaction: <R>(fn: () => R): R => engine.transaction(fn),
        unclaimed,
        writeQueuedStatus: (names: readonly string[]) => status.flushDevices(names),
      };
      releases.push(releaseEndedLinks(marking, links));
    },
    close() {
      status.close();
      storage.close();
    },
  };
}
