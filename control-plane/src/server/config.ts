import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MIN_ADMIN_SECRET_LENGTH } from '../iam/api-key-store.js';
import { TrustedProxies } from '../iam/client-address.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  /** where OS artifacts are stored (default: dataDir/artifacts); replicas may share one directory */
  artifactDir?: string;
  /**
   * where the resource engine keeps its records: `sqlite:<path>` or `postgres://…` (default: SQLite in
   * outpost.db of dataDir)
   */
  database?: string;
  /** OUTPOST_ADMIN_KEY: registered as the admin key's secret; never a flag, so it does not show in `ps` */
  adminKey?: string;
  logLevel: LogLevel;
  heartbeatSeconds: number;
  /** how long device metrics history is kept (hourly buckets); default DEFAULT_METRICS_RETENTION_DAYS (30) */
  metricsRetentionDays?: number;
  /** open watch streams one API key may hold (429 beyond); default DEFAULT_STREAM_LIMITS.perKey */
  watchStreamsPerKey?: number;
  /** open watch streams the server holds (429 beyond); default DEFAULT_STREAM_LIMITS.perServer */
  watchStreamsPerServer?: number;
  /** bytes of changes a watch stream may have waiting for a slow client before it is reset */
  watchStreamMaxBytes?: number;
  /** the whole request head must arrive within this; default DEFAULT_HTTP_TIMEOUTS */
  headersTimeoutSeconds?: number;
  /** a request body from which no byte arrives for this long is answered 408 and its connection closed */
  bodyTimeoutSeconds?: number;
  /** an idle keep-alive connection is closed after this */
  keepAliveTimeoutSeconds?: number;
  /**
   * V8's heap growing factor as 1 + n/100 (its --heap-growing-percent): how far the JavaScript heap may grow
   * past what was live at the last full collection before the next one; 0 leaves it to V8 (up to 4x); default
   * DEFAULT_HEAP_GROWING_PERCENT
   */
  heapGrowingPercent?: number;
  /**
   * the heap growing percent while a wave of TLS connections comes in (tls-wave-heap.ts); 0 keeps
   * heapGrowingPercent then too; default DEFAULT_TLS_WAVE_HEAP_GROWING_PERCENT
   */
  tlsWaveHeapGrowingPercent?: number;
  /**
   * new agent links are refused (503 with Retry-After) while the event loop lags this many milliseconds; 0 never;
   * default DEFAULT_SHED_UPGRADES_LAG_MS
   */
  shedUpgradesLagMs?: number;
  /** largest OS image `PUT /v1/artifacts` takes (413 beyond); default DEFAULT_ARTIFACT_LIMITS */
  maxArtifactBytes?: number;
  /** uploads are refused (503) while the data directory's file system has less free space than this */
  freeSpaceReserveBytes?: number;
  /** reverse proxies (addresses, CIDR ranges) whose X-Forwarded-For names the client of a request */
  trustedProxies?: string[];
  /** PEM files of the certificate (chain) and its private key: the server speaks HTTPS and WSS; plain HTTP without */
  tls?: TlsFiles;
  /**
   * A PEM file of the certificate authorities a replica trusts when it relays to another replica serving TLS (on
   * PostgreSQL); the system's CAs when unset
   */
  clusterCaFile?: string;
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export const DEFAULT_HTTP_TIMEOUTS = { headersTimeoutSeconds: 20, bodyTimeoutSeconds: 30, keepAliveTimeoutSeconds: 5 };

export const DEFAULT_ARTIFACT_LIMITS = { maxArtifactBytes: 8 * 1024 ** 3, freeSpaceReserveBytes: 1024 ** 3 };

/**
 * A rollout at 10,000 devices writes every record several times a minute: left to itself V8 let the heap grow
 * to three times what was live (about 120 MiB) before collecting, most of the control plane's peak memory.
 */
export const DEFAULT_HEAP_GROWING_PERCENT = 50;

/** See tls-wave-heap.ts: while TLS links pour in, fewer full collections mark the growing fleet's heap. */
export const DEFAULT_TLS_WAVE_HEAP_GROWING_PERCENT = 200;

/** An agent gives up a handshake after 15 s: a replica lagging 2 s with upgrades queued behind cannot keep up. */
export const DEFAULT_SHED_UPGRADES_LAG_MS = 2000;

export const DEFAULT_SERVER_CONFIG: Readonly<ServerConfig> = {
  host: '127.0.0.1',
  port: 8080,
  dataDir: './var',
  logLevel: 'info',
  heartbeatSeconds: 15,
};

export const MIN_ADMIN_KEY_LENGTH = MIN_ADMIN_SECRET_LENGTH;

/** Bad flags or environment: main prints the message and exits with status 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const SERVER_USAGE = `Usage: outpost-server [options]

Options (each flag beats its environment variable):
  --host <address>            listen address            OUTPOST_HOST (default 127.0.0.1)
  --port <number>             listen port, 0 = any free OUTPOST_PORT (default 8080)
  --data-dir <path>           holds outpost.db          OUTPOST_DATA_DIR (default ./var)
  --artifact-dir <path>       OS artifacts; replicas on one PostgreSQL share one (a shared filesystem)
                                                        OUTPOST_ARTIFACT_DIR (default <data-dir>/artifacts)
  --database <store>          where everything is kept: sqlite:<path> or postgres://user@host:port/db,
                              over a Unix socket postgres://user@/db?host=/var/run/postgresql
                                                        OUTPOST_DATABASE (default sqlite:<data-dir>/outpost.db)
  --log-level <level>         ${LOG_LEVELS.join('|')}
                                                        OUTPOST_LOG_LEVEL (default info)
  --heartbeat-seconds <n>     agent heartbeat interval  OUTPOST_HEARTBEAT_SECONDS (default 15)
  --metrics-retention-days <n> device metrics history   OUTPOST_METRICS_RETENTION_DAYS (default 30)
  --watch-streams-per-key <n> open watch streams per API key (429 beyond)
                                                        OUTPOST_WATCH_STREAMS_PER_KEY (default 2000)
  --watch-streams-per-server <n> open watch streams in all (429 beyond)
                                                        OUTPOST_WATCH_STREAMS_PER_SERVER (default 10000)
  --watch-stream-max-bytes <n> changes a stream holds for a slow client before it resets
                                                        OUTPOST_WATCH_STREAM_MAX_BYTES (default 16777216)
  --headers-timeout-seconds <n> a request's head must arrive within n s
                                                        OUTPOST_HEADERS_TIMEOUT_SECONDS (default 20)
  --body-timeout-seconds <n>  a request body silent for n s is cut (408); slow but moving bodies are not
                                                        OUTPOST_BODY_TIMEOUT_SECONDS (default 30)
  --keep-alive-timeout-seconds <n> idle keep-alive connections close after n s
                                                        OUTPOST_KEEP_ALIVE_TIMEOUT_SECONDS (default 5)
  --heap-growing-percent <n>  the JavaScript heap grows at most 1 + n/100 times what was live at the last
                              full collection before the next one; 0 leaves it to V8
                                                        OUTPOST_HEAP_GROWING_PERCENT (default ${DEFAULT_HEAP_GROWING_PERCENT})
  --tls-wave-heap-growing-percent <n> the same while new TLS connections come in at 10/s or more (until 10 s
                              below); 0 keeps --heap-growing-percent then too
                                                        OUTPOST_TLS_WAVE_HEAP_GROWING_PERCENT (default ${DEFAULT_TLS_WAVE_HEAP_GROWING_PERCENT})
  --shed-upgrades-lag-ms <n>  new device links are refused with 503 and Retry-After while the event loop
                              lags n ms or more (a connect wave it cannot answer in time); 0 never refuses
                                                        OUTPOST_SHED_UPGRADES_LAG_MS (default ${DEFAULT_SHED_UPGRADES_LAG_MS})
  --max-artifact-bytes <n>    largest OS image upload (413 beyond); suffix K, M, G, T (1024s)
                                                        OUTPOST_MAX_ARTIFACT_BYTES (default 8G)
  --free-space-reserve-bytes <n> uploads are refused (503) below this much free space in the data directory
                                                        OUTPOST_FREE_SPACE_RESERVE_BYTES (default 1G)
  --trusted-proxies <list>    comma-separated addresses and CIDR ranges of reverse proxies whose
                              X-Forwarded-For names the client (failed logins are limited per client)
                                                        OUTPOST_TRUSTED_PROXIES (default none)
  --tls-cert <file>           PEM certificate (chain): serve HTTPS and WSS; re-read on SIGHUP and when it changes
                                                        OUTPOST_TLS_CERT (default none: plain HTTP)
  --tls-key <file>            PEM private key of --tls-cert
                                                        OUTPOST_TLS_KEY
  --cluster-ca <file>         PEM certificate authorities trusted for the other replicas' TLS when relaying to
                              them (replicas on one PostgreSQL)   OUTPOST_CLUSTER_CA (default: the system's)
  -h, --help                  show this help

Environment only:
  OUTPOST_ADMIN_KEY           secret of the admin API key (at least ${MIN_ADMIN_KEY_LENGTH} characters)
`;

type Env = Readonly<Record<string, string | undefined>>;

/** True when argv asks for the usage text instead of a configuration. */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

type IntegerSetting =
  | 'heartbeatSeconds'
  | 'metricsRetentionDays'
  | 'watchStreamsPerKey'
  | 'watchStreamsPerServer'
  | 'watchStreamMaxBytes'
  | 'headersTimeoutSeconds'
  | 'bodyTimeoutSeconds'
  | 'keepAliveTimeoutSeconds'
  | 'heapGrowingPercent'
  | 'tlsWaveHeapGrowingPercent'
  | 'shedUpgradesLagMs';

/** The whole-number settings, each from --<flag> (the variable's name without OUTPOST_) or its variable, in range. */
const INTEGER_SETTINGS: readonly { env: string; key: IntegerSetting; min: number; max: number }[] = [
  { env: 'OUTPOST_HEARTBEAT_SECONDS', key: 'heartbeatSeconds', min: 1, max: 86_400 },
  { env: 'OUTPOST_METRICS_RETENTION_DAYS', key: 'metricsRetentionDays', min: 1, max: 3650 },
  { env: 'OUTPOST_WATCH_STREAMS_PER_KEY', key: 'watchStreamsPerKey', min: 1, max: 1_000_000 },
  { env: 'OUTPOST_WATCH_STREAMS_PER_SERVER', key: 'watchStreamsPerServer', min: 1, max: 1_000_000 },
  { env: 'OUTPOST_WATCH_STREAM_MAX_BYTES', key: 'watchStreamMaxBytes', min: 65_536, max: 2 ** 40 },
  { env: 'OUTPOST_HEADERS_TIMEOUT_SECONDS', key: 'headersTimeoutSeconds', min: 1, max: 3600 },
  { env: 'OUTPOST_BODY_TIMEOUT_SECONDS', key: 'bodyTimeoutSeconds', min: 1, max: 3600 },
  { env: 'OUTPOST_KEEP_ALIVE_TIMEOUT_SECONDS', key: 'keepAliveTimeoutSeconds', min: 1, max: 3600 },
  { env: 'OUTPOST_HEAP_GROWING_PERCENT', key: 'heapGrowingPercent', min: 0, max: 1000 },
  { env: 'OUTPOST_TLS_WAVE_HEAP_GROWING_PERCENT', key: 'tlsWaveHeapGrowingPercent', min: 0, max: 1000 },
  { env: 'OUTPOST_SHED_UPGRADES_LAG_MS', key: 'shedUpgradesLagMs', min: 0, max: 600_000 },
];

/**
 * Builds the server configuration from command-line flags (argv without node and the script) and the
 * environment. Flags beat environment variables; an empty environment variable counts as unset.
 * Throws ConfigError naming the offending flag or variable.
 */
export function loadServerConfig(argv: readonly string[], env: Env): ServerConfig {
  const flags = parseFlags(argv);
  const pick = (flag: string | undefined, envName: string): { value: string; source: string } | undefined => {
    if (flag !== undefined) return { value: flag, source: `--${flagNameOf(envName)}` };
    const fromEnv = env[envName];
    return fromEnv === undefined || fromEnv === '' ? undefined : { value: fromEnv, source: envName };
  };

  const config: ServerConfig = { ...DEFAULT_SERVER_CONFIG };
  const host = pick(flags.host, 'OUTPOST_HOST');
  if (host) config.host = nonEmpty(host);
  const port = pick(flags.port, 'OUTPOST_PORT');
  if (port) config.port = integerIn(port, 0, 65535);
  const dataDir = pick(flags['data-dir'], 'OUTPOST_DATA_DIR');
  if (dataDir) config.dataDir = nonEmpty(dataDir);
  const artifactDir = pick(flags['artifact-dir'], 'OUTPOST_ARTIFACT_DIR');
  if (artifactDir) config.artifactDir = nonEmpty(artifactDir);
  const database = pick(flags['database'], 'OUTPOST_DATABASE');
  if (database) config.database = databaseOf(database);
  const logLevel = pick(flags['log-level'], 'OUTPOST_LOG_LEVEL');
  if (logLevel) config.logLevel = oneOf(logLevel, LOG_LEVELS);
  for (const { env: envName, key, min, max } of INTEGER_SETTINGS) {
    const picked = pick(flags[flagNameOf(envName)], envName);
    if (picked) config[key] = integerIn(picked, min, max);
  }
  const maxArtifact = pick(flags['max-artifact-bytes'], 'OUTPOST_MAX_ARTIFACT_BYTES');
  if (maxArtifact) config.maxArtifactBytes = bytesIn(maxArtifact, 1);
  const reserve = pick(flags['free-space-reserve-bytes'], 'OUTPOST_FREE_SPACE_RESERVE_BYTES');
  if (reserve) config.freeSpaceReserveBytes = bytesIn(reserve, 0);
  const proxies = pick(flags['trusted-proxies'], 'OUTPOST_TRUSTED_PROXIES');
  if (proxies) config.trustedProxies = addressRanges(proxies);
  const tlsCert = pick(flags['tls-cert'], 'OUTPOST_TLS_CERT');
  const tlsKey = pick(flags['tls-key'], 'OUTPOST_TLS_KEY');
  if (tlsCert && tlsKey) config.tls = { certFile: nonEmpty(tlsCert), keyFile: nonEmpty(tlsKey) };
  else if (tlsCert || tlsKey) {
    throw new ConfigError(`${(tlsCert ?? tlsKey)?.source} needs ${tlsCert ? '--tls-key' : '--tls-cert'} too`);
  }
  const clusterCa = pick(flags['cluster-ca'], 'OUTPOST_CLUSTER_CA');
  if (clusterCa) config.clusterCaFile = nonEmpty(clusterCa);
  const adminKey = pick(undefined, 'OUTPOST_ADMIN_KEY');
  if (adminKey) {
    if (adminKey.value.length < MIN_ADMIN_KEY_LENGTH) {
      throw new ConfigError(`invalid OUTPOST_ADMIN_KEY: must be at least ${MIN_ADMIN_KEY_LENGTH} characters`);
    }
    config.adminKey = adminKey.value;
  }
  return config;
}

/** The SQLite file of the control plane. */
export const databasePathOf = (config: Pick<ServerConfig, 'dataDir'>): string => join(config.dataDir, 'outpost.db');

/** Where everything the control plane keeps goes (resources, keys, credentials, tokens, metrics history). */
export type StorageTarget = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

export function storageTargetOf(config: Pick<ServerConfig, 'dataDir' | 'database'>): StorageTarget {
  const database = config.database;
  if (database === undefined) return { kind: 'sqlite', file: databasePathOf(config) };
  if (database.startsWith('sqlite:')) return { kind: 'sqlite', file: database.slice('sqlite:'.length) };
  return { kind: 'postgres', url: database };
}

/**
 * `sqlite:<path>` or a postgres:// (postgresql://) URL naming a host, or a Unix socket directory as the `pg`
 * driver reads one: `?host=/dir`, or the host percent-encoded (`%2Fdir`).
 */
function databaseOf(picked: { value: string; source: string }): string {
  const value = picked.value;
  if (value.startsWith('sqlite:')) {
    if (value.length === 'sqlite:'.length) throw new ConfigError(`invalid ${picked.source}: sqlite: needs a path`);
    return value;
  }
  const host = postgresHostOf(value);
  if (host === undefined) {
    throw new ConfigError(
      `invalid ${picked.source}: expected sqlite:<path> or postgres://user@host:port/database, got "${value}"`,
    );
  }
  if (host === '') {
    throw new ConfigError(
      `invalid ${picked.source}: "${value}" names no host: postgres://user@host:port/database, or a socket ` +
        `directory: postgres://user@/database?host=/var/run/postgresql`,
    );
  }
  if (host.includes('/') && !host.startsWith('/')) {
    throw new ConfigError(`invalid ${picked.source}: socket directory "${host}" of "${value}" is not an absolute path`);
  }
  return value;
}

/**
 * The host a postgres:// URL has the pg driver connect to, as its parser (pg-connection-string) reads it: `?host=`
 * first, else the URL's host percent-decoded; a leading `/` makes it a socket directory. '' when it names none;
 * undefined when `value` is no such URL.
 */
function postgresHostOf(value: string): string | undefined {
  if (!/^postgres(ql)?:\/\//i.test(value)) return undefined;
  let url: URL;
  let hostless = false;
  try {
    url = new URL(value);
  } catch {
    // `user@/database?host=/dir`: the driver reads an empty host after a user name, where URL refuses one
    try {
      url = new URL(value.replace('@/', '@host/'));
      hostless = true;
    } catch {
      return undefined;
    }
  }
  const parameter = url.searchParams.get('host');
  if (parameter) return parameter;
  if (hostless) return '';
  try {
    return decodeURIComponent(url.hostname);
  } catch {
    return undefined;
  }
}

function parseFlags(argv: readonly string[]): Record<string, string | undefined> {
  try {
    const { values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        'artifact-dir': { type: 'string' },
        database: { type: 'string' },
        'log-level': { type: 'string' },
        'heartbeat-seconds': { type: 'string' },
        'metrics-retention-days': { type: 'string' },
        'watch-streams-per-key': { type: 'string' },
        'watch-streams-per-server': { type: 'string' },
        'watch-stream-max-bytes': { type: 'string' },
        'headers-timeout-seconds': { type: 'string' },
        'body-timeout-seconds': { type: 'string' },
        'keep-alive-timeout-seconds': { type: 'string' },
        'heap-growing-percent': { type: 'string' },
        'tls-wave-heap-growing-percent': { type: 'string' },
        'shed-upgrades-lag-ms': { type: 'string' },
        'max-artifact-bytes': { type: 'string' },
        'free-space-reserve-bytes': { type: 'string' },
        'trusted-proxies': { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'cluster-ca': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    const { help: _help, ...strings } = values;
    return strings;
  } catch (err) {
    throw new ConfigError(err instanceof Error ? err.message : String(err));
  }
}

const flagNameOf = (envName: string): string =>
  envName
    .replace(/^OUTPOST_/, '')
    .toLowerCase()
    .replace(/_/g, '-');

function nonEmpty({ value, source }: { value: string; source: string }): string {
  if (value.trim() === '') throw new ConfigError(`invalid ${source}: must not be empty`);
  return value;
}

function integerIn({ value, source }: { value: string; source: string }, min: number, max: number): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(`invalid ${source} "${value}": must be an integer from ${min} to ${max}`);
  }
  return n;
}

const BYTE_SUFFIXES: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** A byte count: digits with an optional K, M, G or T (powers of 1024). */
function bytesIn({ value, source }: { value: string; source: string }, min: number): number {
  const match = /^(\d+)([kmgt]?)$/i.exec(value.trim());
  const n = match ? Number(match[1]) * (BYTE_SUFFIXES[match[2]!.toLowerCase()] ?? NaN) : NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    throw new ConfigError(
      `invalid ${source} "${value}": must be a byte count of at least ${min} (suffix K, M, G or T allowed)`,
    );
  }
  return n;
}

function addressRanges({ value, source }: { value: string; source: string }): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  try {
    new TrustedProxies(entries);
  } catch (err) {
    throw new ConfigError(`invalid ${source}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return entries;
}

function oneOf<T extends string>({ value, source }: { value: string; source: string }, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value.trim().toLowerCase());
  if (found === undefined) throw new ConfigError(`invalid ${source} "${value}": must be one of ${allowed.join(', ')}`);
  return found;
}
