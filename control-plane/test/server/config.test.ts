import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_SERVER_CONFIG, databasePathOf, loadServerConfig } from '../../src/server/config.js';

describe('loadServerConfig', () => {
  it('uses the defaults with no flags and no environment', () => {
    expect(loadServerConfig([], {})).toEqual({
      host: '127.0.0.1',
      port: 8080,
      dataDir: './var',
      logLevel: 'info',
      heartbeatSeconds: 15,
    });
    expect(databasePathOf(DEFAULT_SERVER_CONFIG)).toBe('var/outpost.db');
  });

  it('reads every environment variable', () => {
    const config = loadServerConfig([], {
      OUTPOST_HOST: '0.0.0.0',
      OUTPOST_PORT: '9090',
      OUTPOST_DATA_DIR: '/srv/outpost',
      OUTPOST_ADMIN_KEY: 'a-very-long-admin-secret-0123456789abcdef',
      OUTPOST_LOG_LEVEL: 'debug',
      OUTPOST_HEARTBEAT_SECONDS: '5',
    });
    expect(config).toEqual({
      host: '0.0.0.0',
      port: 9090,
      dataDir: '/srv/outpost',
      adminKey: 'a-very-long-admin-secret-0123456789abcdef',
      logLevel: 'debug',
      heartbeatSeconds: 5,
    });
    expect(databasePathOf(config)).toBe('/srv/outpost/outpost.db');
  });

  it('lets flags beat the environment', () => {
    const env = {
      OUTPOST_HOST: '0.0.0.0',
      OUTPOST_PORT: '9090',
      OUTPOST_DATA_DIR: '/env',
      OUTPOST_LOG_LEVEL: 'debug',
      OUTPOST_HEARTBEAT_SECONDS: '5',
    };
    const argv = [
      '--host',
      '::1',
      '--port=0',
      '--data-dir',
      '/flag',
      '--log-level',
      'warn',
      '--heartbeat-seconds',
      '30',
    ];
    expect(loadServerConfig(argv, env)).toEqual({
      host: '::1',
      port: 0,
      dataDir: '/flag',
      logLevel: 'warn',
      heartbeatSeconds: 30,
    });
  });

  it('reads the request timeouts and the artifact limits, flags beating the environment', () => {
    const env = {
      OUTPOST_HEADERS_TIMEOUT_SECONDS: '7',
      OUTPOST_BODY_TIMEOUT_SECONDS: '9',
      OUTPOST_KEEP_ALIVE_TIMEOUT_SECONDS: '3',
      OUTPOST_MAX_ARTIFACT_BYTES: '2G',
      OUTPOST_FREE_SPACE_RESERVE_BYTES: '512m',
    };
    expect(loadServerConfig([], env)).toMatchObject({
      headersTimeoutSeconds: 7,
      bodyTimeoutSeconds: 9,
      keepAliveTimeoutSeconds: 3,
      maxArtifactBytes: 2 * 1024 ** 3,
      freeSpaceReserveBytes: 512 * 1024 ** 2,
    });
    const argv = ['--body-timeout-seconds', '60', '--max-artifact-bytes', '1000', '--free-space-reserve-bytes', '0'];
    expect(loadServerConfig(argv, env)).toMatchObject({
      bodyTimeoutSeconds: 60,
      maxArtifactBytes: 1000,
      freeSpaceReserveBytes: 0,
    });
  });

  it('reads --heap-growing-percent or OUTPOST_HEAP_GROWING_PERCENT, 0 to 1000', () => {
    expect(loadServerConfig([], {}).heapGrowingPercent).toBeUndefined(); // the server applies its default
    expect(loadServerConfig([], { OUTPOST_HEAP_GROWING_PERCENT: '0' })).toMatchObject({ heapGrowingPercent: 0 });
    expect(loadServerConfig(['--heap-growing-percent', '100'], { OUTPOST_HEAP_GROWING_PERCENT: '20' })).toMatchObject({
      heapGrowingPercent: 100,
    });
    for (const bad of ['-1', '1001', '1.5', 'half']) {
      expect(() => loadServerConfig([`--heap-growing-percent=${bad}`], {})).toThrow(
        new RegExp(`invalid --heap-growing-percent "${bad}"`),
      );
    }
  });

  it('reads --shed-upgrades-lag-ms or OUTPOST_SHED_UPGRADES_LAG_MS, 0 (never) to 600000', () => {
    expect(loadServerConfig([], {}).shedUpgradesLagMs).toBeUndefined(); // the server applies its default
    expect(loadServerConfig([], { OUTPOST_SHED_UPGRADES_LAG_MS: '0' })).toMatchObject({ shedUpgradesLagMs: 0 });
    expect(loadServerConfig(['--shed-upgrades-lag-ms', '500'], { OUTPOST_SHED_UPGRADES_LAG_MS: '20' })).toMatchObject({
      shedUpgradesLagMs: 500,
    });
    for (const bad of ['-1', '600001', '2.5', 'lots']) {
      expect(() => loadServerConfig([`--shed-upgrades-lag-ms=${bad}`], {})).toThrow(
        new RegExp(`invalid --shed-upgrades-lag-ms "${bad}"`),
      );
    }
  });

  it('reads --tls-wave-heap-growing-percent or OUTPOST_TLS_WAVE_HEAP_GROWING_PERCENT, 0 to 1000', () => {
    expect(loadServerConfig([], {}).tlsWaveHeapGrowingPercent).toBeUndefined(); // the server applies its default
    expect(loadServerConfig([], { OUTPOST_TLS_WAVE_HEAP_GROWING_PERCENT: '0' })).toMatchObject({
      tlsWaveHeapGrowingPercent: 0,
    });
    expect(
      loadServerConfig(['--tls-wave-heap-growing-percent', '400'], { OUTPOST_TLS_WAVE_HEAP_GROWING_PERCENT: '20' }),
    ).toMatchObject({ tlsWaveHeapGrowingPercent: 400 });
    for (const bad of ['-1', '1001', '2.5', 'lots']) {
      expect(() => loadServerConfig([`--tls-wave-heap-growing-percent=${bad}`], {})).toThrow(
        new RegExp(`invalid --tls-wave-heap-growing-percent "${bad}"`),
      );
    }
  });

  it('treats empty environment variables as unset', () => {
    expect(loadServerConfig([], { OUTPOST_PORT: '', OUTPOST_ADMIN_KEY: '' })).toEqual(DEFAULT_SERVER_CONFIG);
  });

  it.each([
    [['--port', 'http'], {}, /invalid --port "http": must be an integer from 0 to 65535/],
    [['--port', '70000'], {}, /--port/],
    [['--port', '-1'], {}, /--port/],
    [[], { OUTPOST_PORT: '80.5' }, /invalid OUTPOST_PORT "80.5"/],
    [['--log-level', 'loud'], {}, /invalid --log-level "loud": must be one of fatal, error, warn, info, debug/],
    [[], { OUTPOST_HEARTBEAT_SECONDS: '0' }, /invalid OUTPOST_HEARTBEAT_SECONDS "0"/],
    [['--data-dir', ' '], {}, /invalid --data-dir: must not be empty/],
    [[], { OUTPOST_ADMIN_KEY: 'short' }, /OUTPOST_ADMIN_KEY: must be at least 32 characters/],
    [['--colour'], {}, /Unknown option '--colour'/],
    [['--body-timeout-seconds', '0'], {}, /invalid --body-timeout-seconds "0": must be an integer from 1 to 3600/],
    [[], { OUTPOST_MAX_ARTIFACT_BYTES: '2 GB' }, /invalid OUTPOST_MAX_ARTIFACT_BYTES "2 GB": must be a byte count/],
    [['--max-artifact-bytes', '0'], {}, /--max-artifact-bytes "0": must be a byte count of at least 1/],
    [['--free-space-reserve-bytes', '-1'], {}, /--free-space-reserve-bytes/],
    [['extra'], {}, /Unexpected argument 'extra'/],
    [['--port'], {}, /--port/],
  ] as const)('refuses %j %j', (argv, env, message) => {
    expect(() => loadServerConfig(argv, env)).toThrow(ConfigError);
    expect(() => loadServerConfig(argv, env)).toThrow(message);
  });
});

describe('TLS configuration', () => {
  it('takes the certificate and key from flags or the environment', () => {
    expect(loadServerConfig(['--tls-cert', '/c.pem', '--tls-key', '/k.pem'], {}).tls).toEqual({
      certFile: '/c.pem',
      keyFile: '/k.pem',
    });
    expect(loadServerConfig([], { OUTPOST_TLS_CERT: '/c.pem', OUTPOST_TLS_KEY: '/k.pem' }).tls).toEqual({
      certFile: '/c.pem',
      keyFile: '/k.pem',
    });
    expect(loadServerConfig([], {}).tls).toBeUndefined();
  });

  it('refuses a certificate without a key and a key without a certificate', () => {
    expect(() => loadServerConfig(['--tls-cert', '/c.pem'], {})).toThrow(
      new ConfigError('--tls-cert needs --tls-key too'),
    );
    expect(() => loadServerConfig([], { OUTPOST_TLS_KEY: '/k.pem' })).toThrow(
      new ConfigError('OUTPOST_TLS_KEY needs --tls-cert too'),
    );
  });
});
