import { ApiError, CHANNEL_SERVICES } from '@outpost/shared';
import type { ChannelService } from '@outpost/shared';
import type { DebugBundleSources } from './debug/debug-bundle.js';
import type { ChannelServiceHandler } from './transfer/channel-services.js';

type ChannelServiceHandlers = Partial<Record<ChannelService, ChannelServiceHandler>>;

/**
 * The device's channel services (file transfer, debug bundle), loaded when the first channel opens: their
 * code and libraries (tar, execa) stay out of the memory of an agent that never opens one.
 */
export function channelServicesOnDemand(sources: DebugBundleSources): ChannelServiceHandlers {
  let loading: Promise<ChannelServiceHandlers> | undefined;
  const load = (): Promise<ChannelServiceHandlers> =>
    (loading ??= import('./transfer/device-channel-services.js').then(
      ({ deviceChannelServices }) => deviceChannelServices(sources),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    ));
  const handlers: ChannelServiceHandlers = {};
  for (const service of CHANNEL_SERVICES) {
    handlers[service] = async (args, channel) => {
      const handler = (await load())[service];
      if (handler === undefined) throw new ApiError('UNIMPLEMENTED', `this agent has no channel service "${service}"`);
      return handler(args, channel);
    };
  }
  return handlers;
}
