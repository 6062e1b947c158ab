import type { ChannelService } from '@outpost/shared';
import type { DebugBundleSources } from '../debug/debug-bundle.js';
import { debugBundleService } from '../debug/debug-bundle.js';
import type { ChannelServiceHandler } from './channel-services.js';
import { forwardService } from '../remote/forward-service.js';
import { terminalService } from '../remote/terminal-service.js';
import { partFileRecord } from './part-files.js';
import { downloadService, uploadService } from './transfer-services.js';

/** Every channel service of a device: file upload and download, the debug bundle, the terminal and port forwards. */
export function deviceChannelServices(
  bundle: DebugBundleSources,
): Partial<Record<ChannelService, ChannelServiceHandler>> {
  return {
    'transfer.upload': uploadService(bundle.logger, partFileRecord(bundle.paths.dataDir, bundle.logger)),
    'transfer.download': downloadService(bundle.paths.deviceRoot, bundle.logger),
    'debug.bundle': debugBundleService(bundle),
    'remote.terminal': terminalService(bundle.logger, bundle.paths.desiredDeviceFile),
    'remote.forward': forwardService(bundle.logger, bundle.paths.desiredDeviceFile),
  };
}
