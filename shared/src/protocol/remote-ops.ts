import { z } from 'zod';

/** Commands that power the device off or reboot it (the agent answers, then runs its on-shutdown hooks and acts). */
export const POWER_COMMANDS = { reboot: 'power.reboot', shutdown: 'power.shutdown' } as const;

/**
 * `channel.open`: the server opened channel `channelId` for one of the agent's channel services; the agent
 * answers once the arguments are checked, then bytes flow in binary frames (design.md "Agent protocol").
 */
export const CHANNEL_OPEN_COMMAND = 'channel.open';

export const CHANNEL_SERVICES = [
  'transfer.upload',
  'transfer.download',
  'debug.bundle',
  'remote.terminal',
  'remote.forward',
] as const;
export type ChannelService = (typeof CHANNEL_SERVICES)[number];

export const channelOpenArgsSchema = z.object({
  channelId: z.int().min(1).max(0xffff_ffff),
  service: z.enum(CHANNEL_SERVICES),
  args: z.unknown().optional(),
});

/**
 * `transfer.upload`: the server sends a transfer stream; the agent places it at `path` (absolute; a trailing
 * slash means "into this directory") and answers with an `uploadSummary` JSON on the channel.
 */
export const uploadArgsSchema = z.object({ path: z.string().min(1) });

/** `transfer.download`: the agent sends `path` (a directory only with `recursive`) as a transfer stream. */
export const downloadArgsSchema = z.object({ path: z.string().min(1), recursive: z.boolean().optional() });

export const uploadSummarySchema = z.object({
  files: z.int().min(0),
  bytes: z.int().min(0),
  /** where the copied root landed on the device */
  destination: z.string(),
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })).optional(),
});

export type ChannelOpenArgs = z.infer<typeof channelOpenArgsSchema>;
export type UploadArgs = z.infer<typeof uploadArgsSchema>;
export type DownloadArgs = z.infer<typeof downloadArgsSchema>;
export type UploadSummary = z.infer<typeof uploadSummarySchema>;

export * from './remote-access.js';
