import { describe, expect, it } from 'vitest';
import { ConfigError, loadServerConfig, storageTargetOf } from '../../src/server/config.js';

describe('--database / OUTPOST_DATABASE', () => {
  it('defaults to SQLite in the data folder', () => {
    expect(storageTargetOf(loadServerConfig(['--data-dir', '/srv/o'], {}))).toEqual({
      kind: 'sqlite',
      file: '/srv/o/outpost.db',
    });
  });

  it('takes sqlite:<path> and postgres:// URLs, the flag beating the variable', () => {
    expect(storageTargetOf(loadServerConfig([], { OUTPOST_DATABASE: 'sqlite:/data/fleet.db' }))).toEqual({
      kind: 'sqlite',
      file: '/data/fleet.db',
    });
    const url = 'postgres://outpost@db.internal:5432/outpost';
    expect(
      storageTargetOf(loadServerConfig(['--database', url], { OUTPOST_DATABASE: 'sqlite:/data/fleet.db' })),
    ).toEqual({ kind: 'postgres', url });
    expect(loadServerConfig(['--database', 'postgresql://h/db'], {}).database).toBe('postgresql://h/db');
  });

  it('takes a PostgreSQL Unix socket directory, as the pg driver reads one', () => {
    for (const url of [
      'postgres:///outpost?host=/var/run/postgresql',
      'postgres://outpost@/outpost?host=/var/run/postgresql&port=5433',
      'postgresql://outpost@%2Fvar%2Frun%2Fpostgresql/outpost',
      'postgresql://outpost@%2Fvar%2Frun%2Fpostgresql:5433/outpost',
    ]) {
      expect(storageTargetOf(loadServerConfig(['--database', url], {}))).toEqual({ kind: 'postgres', url });
    }
  });

  it('refuses anything else, naming the flag or variable', () => {
    for (const bad of [
      'sqlite:',
      'mysql://h/db',
      'outpost.db',
      'postgres:///nohost',
      'postgres://outpost@/outpost',
      'postgres:///outpost?host=',
      'postgres:///outpost?host=run/postgresql',
      'postgres://outpost@%2/outpost',
    ]) {
      expect(() => loadServerConfig(['--database', bad], {})).toThrow(ConfigError);
    }
    expect(() => loadServerConfig(['--database', 'postgres:///outpost'], {})).toThrow(
      /names no host: .*postgres:\/\/user@\/database\?host=\/var\/run\/postgresql/,
    );
    expect(() => loadServerConfig(['--database', 'postgres:///o?host=run/pg'], {})).toThrow(
      /socket directory "run\/pg" .* is not an absolute path/,
    );
    expect(() => loadServerConfig([], { OUTPOST_DATABASE: 'mysql://h/db' })).toThrow(/invalid OUTPOST_DATABASE/);
    expect(() => loadServerConfig(['--database', 'x'], {})).toThrow(/invalid --database: expected sqlite:<path>/);
  });
});
