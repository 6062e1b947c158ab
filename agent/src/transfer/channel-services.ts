import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiError,
  CHANNEL_OPEN_COMMAND,
  FramePool,
  alreadyExists,
  channelOpenArgsSchema,
  linkChannelTable,
  invalidArgument,
  unavailable,
} from '@outpost/shared';
import type { Channel, ChannelErrorDetail, ChannelService, FlowSettings } from '@outpost/shared';
import type { AgentLink } from '../link/agent-link.js';
import type { Logger } from '../logging/logger.js';

/** The longest `stop` waits for the services of open channels to clean up. */
const STOP_WAIT_MS = 5_000;

/** What a channel service does once its arguments are accepted: `run` moves the bytes, `info` answers the open. */
export interface OpenedChannelService {
  info?: unknown;
  run(): Promise<void>;
}

/**
 * One service reachable through `channel.open`: checks its arguments (a throw refuses the open, before any byte
 * flows) and returns what to run on the channel.
 */
export type ChannelServiceHandler = (args: unknown, channel: Channel) => Promise<OpenedChannelService>;

export interface ChannelServicesOptions {
  link: AgentLink;
  logger: Logger;
  services: Partial<Record<ChannelService, ChannelServiceHandler>>;
  flow?: FlowSettings;
}

/**
 * The agent's side of channels: routes the link's binary frames, opens a channel for each `channel.open`
 * command and runs its service; a failing service aborts its channel with the error, and a lost link fails
 * every open channel.
 */
export function startChannelServices(options: ChannelServicesOptions): {
  /** fails every open channel and settles once their services have cleaned up (an upload's temporary file) */
  stop(): Promise<void>;
  readonly open: number;
} {
  const { link, logger } = options;
  const running = new Set<Promise<void>>();
  const table = linkChannelTable(
    (frame, sent) => link.sendBinary(frame, sent),
    options.flow,
    new FramePool(options.flow),
  );
  const offBinary = link.onBinary((frame) => {
    if (table.route(frame) === 'malformed') logger.warn('ignored a malformed channel frame');
  });
  const offDisconnected = link.onDisconnected(() => table.failAll(unavailable('the link to the control plane closed')));
  const offCommand = link.setCommandHandler(CHANNEL_OPEN_COMMAND, async (raw) => {
    const parsed = channelOpenArgsSchema.safeParse(raw);
    if (!parsed.success) throw invalidArgument(`invalid ${CHANNEL_OPEN_COMMAND} arguments: ${parsed.error.message}`);
    const { channelId, service, args } = parsed.data;
    const handler = options.services[service];
    if (handler === undefined) throw new ApiError('UNIMPLEMENTED', `this agent has no channel service "${service}"`);
    if (table.get(channelId) !== undefined) throw alreadyExists(`channel ${channelId} is already open`);
    const channel = table.open(channelId);
    let opened: OpenedChannelService;
    try {
      opened = await handler(args, channel);
    } catch (err) {
      table.release(channelId);
      throw err;
    }
    // after the result of the open is on its way
    const started = new Promise<void>((resolve) => setImmediate(resolve));
    const run = started
      .then(() => opened.run())
      .catch((err: unknown) => {
        const detail = detailOf(err);
        if (channel.error === undefined) logger.warn({ service, channelId, ...detail }, 'channel service failed');
        channel.abort(detail);
      })
      .finally(() => {
        table.release(channelId);
        running.delete(run);
      });
    running.add(run);
    return opened.info ?? {};
  });
  return {
    async stop() {
      offCommand();
      offBinary();
      offDisconnected();
      table.failAll(unavailable('the agent is stopping'));
      // a service that does not end with its channel must not hold the agent's stop up
      await Promise.race([Promise.all(running), sleep(STOP_WAIT_MS, undefined, { ref: false })]);
    },
    get open() {
      return table.size;
    },
  };
}

function detailOf(err: unknown): ChannelErrorDetail {
  if (err instanceof ApiError) return { status: err.status, message: err.message };
  return { status: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
}
