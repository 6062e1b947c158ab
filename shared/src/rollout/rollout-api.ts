import type { OutpostClient } from '../client/outpost-client.js';
import type { PublishedVersion, NamedReason } from './preflight.js';
import type { DeviceWatchResponse } from './watched-devices.js';

/** What a rollout asks of the control plane: the catalog, one watch, and masked writes of spec.osVersion. */
export interface RolloutApi {
  /** the published OS versions `version` of every device type */
  publishedVersions(version: string): Promise<PublishedVersion[]>;
  /** a stateless watch of the devices of `parent` that pass `filter`, from `resumeToken` when given */
  watchDevices(
    request: { parent: string; filter: string; fieldMask: readonly string[]; resumeToken?: string },
    signal: AbortSignal,
  ): AsyncIterable<DeviceWatchResponse>;
  /**
   * Writes spec.osVersion (update mask spec.osVersion, nothing else changes) to at most BATCH_WRITE_SIZE devices
   * of `parent`; answers the devices whose write was refused, and why.
   */
  writeOsVersion(
    parent: string,
    names: readonly string[],
    version: string,
    signal: AbortSignal,
  ): Promise<NamedReason[]>;
}

/** Devices per `devices:batchUpdate` call (the API's most). */
export const BATCH_WRITE_SIZE = 1000;

/** The calls of an OutpostClient (or anything with its three methods) that a rollout makes. */
export type RolloutClient = Pick<OutpostClient, 'listAll' | 'watch' | 'request'>;

interface BatchUpdateAnswer {
  failures?: { name?: string; error?: { status?: string; message?: string } }[];
}

export function rolloutApiOf(client: RolloutClient): RolloutApi {
  return {
    publishedVersions: async (version) => {
      const found: PublishedVersion[] = [];
      const filter = `version = ${JSON.stringify(version)}`;
      for await (const v of client.listAll<PublishedVersion>('', 'osVersions', { filter, pageSize: 1000 })) {
        found.push(v);
      }
      return found;
    },
    watchDevices: (request, signal) =>
      client.watch<DeviceWatchResponse>(
        `/v1/${request.parent}/devices:watch`,
        {
          type: 'STATELESS',
          filter: request.filter,
          fieldMask: request.fieldMask.join(','),
          maxChunkSize: 1000,
          ...(request.resumeToken !== undefined ? { resumeToken: request.resumeToken } : {}),
        },
        signal,
      ),
    writeOsVersion: async (parent, names, version, signal) => {
      const answer = await client.request<BatchUpdateAnswer>('POST', `/v1/${parent}/devices:batchUpdate`, {
        body: {
          requests: names.map((name) => ({
            device: { name, spec: { osVersion: version } },
            updateMask: 'spec.osVersion',
          })),
          allowPartialSuccess: true,
          responseMask: { skipEntireResponseBody: true },
        },
        signal,
      });
      return (answer?.failures ?? []).map((f) => ({
        name: f.name ?? '',
        why: `write refused: ${f.error?.status ?? 'ERROR'}: ${f.error?.message ?? ''}`,
      }));
    },
  };
}
