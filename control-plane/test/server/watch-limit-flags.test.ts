import { describe, expect, it } from 'vitest';
import { ConfigError, loadServerConfig, SERVER_USAGE } from '../../src/server/config.js';

describe('the watch stream limits of the server', () => {
  it('are read from flags, or else from the environment', () => {
    expect(
      loadServerConfig(['--watch-streams-per-key', '5', '--watch-stream-max-bytes', '1048576'], {
        OUTPOST_WATCH_STREAMS_PER_KEY: '7',
        OUTPOST_WATCH_STREAMS_PER_SERVER: '50',
      }),
    ).toMatchObject({ watchStreamsPerKey: 5, watchStreamsPerServer: 50, watchStreamMaxBytes: 1_048_576 });
    expect(loadServerConfig([], {})).not.toHaveProperty('watchStreamsPerKey');
  });

  it('refuse values out of range, naming the flag', () => {
    expect(() => loadServerConfig(['--watch-streams-per-server', '0'], {})).toThrow(ConfigError);
    expect(() => loadServerConfig(['--watch-stream-max-bytes', '1000'], {})).toThrow(/--watch-stream-max-bytes/);
    expect(() => loadServerConfig([], { OUTPOST_WATCH_STREAMS_PER_KEY: 'many' })).toThrow(
      /OUTPOST_WATCH_STREAMS_PER_KEY/,
    );
  });

  it('are in the usage text', () => {
    for (const flag of ['--watch-streams-per-key', '--watch-streams-per-server', '--watch-stream-max-bytes']) {
      expect(SERVER_USAGE).toContain(flag);
    }
  });
});
