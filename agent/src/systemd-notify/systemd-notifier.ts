import type { Logger } from '../logging/logger.js';
import { notifySettingsFromEnv } from './notify-settings.js';
import { unixDatagramSender } from './unix-datagram.js';
import type { SendDatagram } from './unix-datagram.js';
import { startWatchdog } from './watchdog.js';

/** The agent's side of systemd's service notification protocol (sd_notify(3)); does nothing outside Type=notify. */
export interface SystemdNotifier {
  /** READY=1 with a STATUS= line; starts petting the watchdog when systemd runs one for the agent */
  ready(status: string): void;
  /** a STATUS= line (what `systemctl status droplet` shows) */
  status(status: string): void;
  /** STOPPING=1; stops petting the watchdog */
  stopping(): void;
}

export interface SystemdNotifierOptions {
  env: NodeJS.ProcessEnv;
  pid: number;
  logger: Logger;
}

const INACTIVE: SystemdNotifier = { ready: () => undefined, status: () => undefined, stopping: () => undefined };

export function systemdNotifier(options: SystemdNotifierOptions): SystemdNotifier {
  const { logger } = options;
  const found = notifySettingsFromEnv(options.env, options.pid);
  if (found.kind === 'absent') return INACTIVE;
  if (found.kind === 'unsupported') {
    logger.warn(`${found.reason}: systemd is not told the agent is ready`);
    return INACTIVE;
  }
  const { socketPath, watchdogPeriodMs } = found.settings;
  let send: SendDatagram;
  try {
    send = unixDatagramSender();
  } catch (err) {
    logger.error({ err }, 'cannot load the unix-dgram addon: systemd is not told the agent is ready');
    return INACTIVE;
  }
  const notify = (message: string): void => {
    send(socketPath, message).catch((err: unknown) =>
      logger.warn({ err, message: message.split('\n')[0] }, 'cannot notify systemd'),
    );
  };
  let watchdog: { stop(): void } | undefined;
  return {
    ready(status) {
      notify(`READY=1\n${statusLine(status)}`);
      if (watchdogPeriodMs !== undefined && watchdog === undefined) {
        watchdog = startWatchdog(() => notify('WATCHDOG=1'), watchdogPeriodMs);
        logger.info({ watchdogPeriodMs }, 'petting the systemd watchdog');
      }
    },
    status(status) {
      notify(statusLine(status));
    },
    stopping() {
      watchdog?.stop();
      watchdog = undefined;
      notify('STOPPING=1');
    },
  };
}

const statusLine = (status: string): string => `STATUS=${status.replaceAll('\n', ' ')}`;
