import {
  TreeWriter,
  downloadArgsSchema,
  encodeTree,
  invalidArgument,
  prepareTreeSource,
  uploadArgsSchema,
  writeTree,
} from '@outpost/shared';
import type { PartFileRecord, UploadSummary } from '@outpost/shared';
import type { z } from 'zod';
import type { Logger } from '../logging/logger.js';
import type { ChannelServiceHandler } from './channel-services.js';
import { downloadSource, placeUploadRoot, uploadDestination } from './remote-paths.js';

/**
 * `transfer.upload`: writes the transfer stream the channel carries at the requested path (each file through a
 * temporary file, renamed into place once its SHA-256 matches, told to `partFiles`) and answers with an upload
 * summary. Entries below the root are made without following links (TreeWriter's ConfinedTree): a symlinked
 * directory already there is refused, never written through.
 */
export function uploadService(logger: Logger, partFiles: PartFileRecord): ChannelServiceHandler {
  return async (raw, channel) => {
    const destination = uploadDestination(parseArgs(uploadArgsSchema, raw, 'transfer.upload').path);
    return {
      run: async () => {
        const writer = new TreeWriter({ placeRoot: (root) => placeUploadRoot(destination, root), partFiles });
        const summary = await writeTree(channel, writer);
        logger.info(
          { destination: summary.destination, files: summary.files, bytes: summary.bytes },
          'upload received',
        );
        const answer: UploadSummary = {
          files: summary.files,
          bytes: summary.bytes,
          destination: summary.destination,
          ...(summary.skipped.length > 0 ? { skipped: summary.skipped } : {}),
        };
        await channel.write(new TextEncoder().encode(JSON.stringify(answer)));
        await channel.end();
      },
    };
  };
}

/** `transfer.download`: sends a file (or, recursively, a directory) as a transfer stream. */
export function downloadService(deviceRoot: string, logger: Logger): ChannelServiceHandler {
  return async (raw, channel) => {
    const args = parseArgs(downloadArgsSchema, raw, 'transfer.download');
    const source = await prepareTreeSource(downloadSource(args.path, deviceRoot), args.recursive ?? false);
    return {
      info: { kind: source.kind, name: source.rootName, size: source.size },
      run: async () => {
        // file bytes are read straight into frames: sent without a copy
        const frames = encodeTree(source, undefined, (length) => channel.payloadBuffer(length));
        for await (const piece of frames) await channel.write(piece);
        await channel.end();
        logger.info({ path: source.path }, 'download sent');
      },
    };
  };
}

function parseArgs<T>(schema: z.ZodType<T>, raw: unknown, service: string): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw invalidArgument(`invalid ${service} arguments: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}
