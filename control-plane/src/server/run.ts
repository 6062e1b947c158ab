import type { DestinationStream } from 'pino';
import {
  ConfigError,
  DEFAULT_HEAP_GROWING_PERCENT,
  DEFAULT_TLS_WAVE_HEAP_GROWING_PERCENT,
  loadServerConfig,
  SERVER_USAGE,
  wantsHelp,
  type ServerConfig,
} from './config.js';
import { createLogger, type Logger } from './logger.js';
import { tuneHeapForTlsWaves, type ConnectionSource } from './tls-wave-heap.js';
import { isLoopbackHost } from '@outpost/shared';

export interface RunningServer {
  url: string;
  /** printed on stdout once the server listens (the admin key a first start created) */
  announcement?: string;
  /** re-reads the TLS certificate files (SIGHUP); absent when the server speaks plain HTTP */
  reloadCertificate?(): boolean;
  /** the new connections of the HTTPS server (heap tuning while they pour in); absent when it speaks plain HTTP */
  tlsConnections?: ConnectionSource;
  close(): Promise<void>;
}

export type StartServer = (config: ServerConfig, logger: Logger) => Promise<RunningServer>;

/** Everything the server process touches, passed in so the life cycle can be tested without a process. */
export interface ServerProcess {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** where log lines go; stdout when absent */
  logDestination?: DestinationStream;
  /** registers the shutdown handler for SIGTERM and SIGINT */
  onShutdownSignal: (handler: (signal: string) => void) => void;
  /** registers the handler for SIGHUP (re-read the TLS certificate) */
  onReloadSignal?: (handler: () => void) => void;
  exit: (code: number) => void;
  /**
   * sets the growing percent of the process's JavaScript heap (0: V8's own): --heap-growing-percent before the
   * server starts, --tls-wave-heap-growing-percent while a wave of TLS connections lasts
   */
  tuneHeap?: (growingPercent: number) => void;
}

/**
 * Loads the configuration, starts the server and stops it on the first SIGTERM/SIGINT (exit 0 once closed);
 * a second signal exits 1 at once. Bad configuration exits 2, a failed start exits 1.
 */
export async function runServer(start: StartServer, proc: ServerProcess): Promise<void> {
  if (wantsHelp(proc.argv)) {
    proc.stdout(SERVER_USAGE);
    proc.exit(0);
    return;
  }
  let config: ServerConfig;
  try {
    config = loadServerConfig(proc.argv, proc.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    proc.stderr(`outpost-server: ${err.message}\nRun 'outpost-server --help' for the options.\n`);
    proc.exit(2);
    return;
  }

  const heapGrowingPercent = config.heapGrowingPercent ?? DEFAULT_HEAP_GROWING_PERCENT;
  proc.tuneHeap?.(heapGrowingPercent);
  const logger = createLogger(config.logLevel, proc.logDestination);
  let running: RunningServer;
  try {
    running = await start(config, logger);
  } catch (err) {
    logger.fatal({ err }, 'cannot start');
    proc.exit(1);
    return;
  }
  logger.info({ url: running.url }, 'listening');
  if (running.reloadCertificate === undefined) announcePlainHttp(config.host, logger);
  proc.onReloadSignal?.(() => {
    if (running.reloadCertificate === undefined) logger.info('SIGHUP: no TLS certificate to reload');
    else running.reloadCertificate();
  });
  if (running.announcement !== undefined) proc.stdout(running.announcement + '\n');
  const wavePercent = config.tlsWaveHeapGrowingPercent ?? DEFAULT_TLS_WAVE_HEAP_GROWING_PERCENT;
  const stopWaveTuning =
    running.tlsConnections === undefined || proc.tuneHeap === undefined || wavePercent === 0
      ? () => {}
      : tuneHeapForTlsWaves(running.tlsConnections, {
          basePercent: heapGrowingPercent,
          wavePercent,
          setGrowingPercent: proc.tuneHeap,
          onWave: (inWave, percent) =>
            logger.info(
              { heapGrowingPercent: percent },
              inWave ? 'a wave of TLS connections: the heap grows further until it is over' : 'the TLS wave is over',
            ),
        });

  let stopping = false;
  proc.onShutdownSignal((signal) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      proc.exit(1);
      return;
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stopWaveTuning();
    running.close().then(
      () => {
        logger.info('stopped');
        proc.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        proc.exit(1);
      },
    );
  });
}

/** Plain HTTP is for loopback and development; on any other address it is said loudly. */
function announcePlainHttp(host: string, logger: Logger): void {
  if (isLoopbackHost(host)) {
    logger.info({ host }, 'serving plain HTTP on loopback (development); give --tls-cert and --tls-key for HTTPS');
    return;
  }
  logger.warn(
    { host },
    'serving plain HTTP on a non-loopback address: API keys and device credentials cross the network in the clear; ' +
      'give --tls-cert and --tls-key, or put a TLS reverse proxy in front (README "Production")',
  );
}
