import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LOCK_TTL_MS, MAX_LOCK_TTL_MS, heldAt, leaseExpiry } from '../../src/locks/lock-lease.js';
import { UpdateLocks, locksDir } from '../../src/locks/update-locks.js';
import { lockCommand } from '../../src/locks/lock-command.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'locks-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('lock leases', () => {
  const written = Date.parse('2026-05-01T12:00:00Z');

  it('ends at the time a lock file states', () => {
    expect(leaseExpiry('2026-05-01T12:30:00Z\n', written)).toBe(Date.parse('2026-05-01T12:30:00Z'));
  });

  it('ends the default lease after the last write when the file states nothing usable', () => {
    expect(leaseExpiry('', written)).toBe(written + DEFAULT_LOCK_TTL_MS);
    expect(leaseExpiry('held by the database', written)).toBe(written + DEFAULT_LOCK_TTL_MS);
  });

  it('never runs longer than the longest lease, whatever the file says', () => {
    expect(leaseExpiry('2099-01-01T00:00:00Z', written)).toBe(written + MAX_LOCK_TTL_MS);
  });

  it('holds only until its expiry', () => {
    const locks = [
      { name: 'b', expiresAtMs: written + 2 },
      { name: 'a', expiresAtMs: written + 1 },
      { name: 'gone', expiresAtMs: written },
    ];
    expect(heldAt(locks, written).map((l) => l.name)).toEqual(['a', 'b']);
    expect(heldAt(locks, written + 2)).toEqual([]);
  });
});

describe('update locks on disk', () => {
  it('acquires, lists and releases a lock file', async () => {
    let now = Date.parse('2026-05-01T12:00:00Z');
    const locks = new UpdateLocks(locksDir(root), () => now);
    const lock = await locks.acquire('app', 10 * 60_000);
    expect(lock.expiresAtMs).toBe(now + 10 * 60_000);
    expect(await readFile(join(root, 'data', 'locks', 'app'), 'utf8')).toBe('2026-05-01T12:10:00.000Z\n');
    expect(heldAt(await locks.list(), now)).toEqual([lock]);
    now += 10 * 60_000;
    expect(heldAt(await locks.list(), now)).toEqual([]);
    expect(await locks.release('app')).toBe(true);
    expect(await locks.release('app')).toBe(false);
    expect(await locks.list()).toEqual([]);
  });

  it("reads a container's lock file by its mtime, and skips files that are no lock", async () => {
    const dir = locksDir(root);
    const locks = new UpdateLocks(dir);
    await locks.acquire('seed', 60_000); // creates the folder
    await locks.release('seed');
    await writeFile(join(dir, 'camera'), '');
    const touched = new Date('2026-05-01T12:00:00Z');
    await utimes(join(dir, 'camera'), touched, touched);
    await writeFile(join(dir, '.hidden.tmp'), '');
    expect(await locks.list()).toEqual([{ name: 'camera', expiresAtMs: touched.getTime() + DEFAULT_LOCK_TTL_MS }]);
  });

  it('refuses names that are no file name and leases beyond the longest', async () => {
    const locks = new UpdateLocks(locksDir(root));
    await expect(locks.acquire('../escape', 60_000)).rejects.toThrow(/not a lock name/);
    await expect(locks.acquire('app', MAX_LOCK_TTL_MS + 1)).rejects.toThrow(/at most 24h/);
    await expect(locks.list()).resolves.toEqual([]);
  });
});

describe('droplet lock', () => {
  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await lockCommand([...argv], { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('acquire, list and release', async () => {
    const acquired = await run('acquire', 'app', '--ttl', '10m', '--device-root', root);
    expect(acquired).toMatchObject({ code: 0, out: expect.stringMatching(/^acquired update lock app until /) });
    expect((await run('list', '--device-root', root)).out).toMatch(/^app \(until .*\)$/);
    expect(await run('release', 'app', '--device-root', root)).toMatchObject({
      code: 0,
      out: 'released update lock app',
    });
    expect((await run('list', '--device-root', root)).out).toBe('no update locks are held');
  });

  it('is a usage error without --ttl or with a bad one, and a failure with a bad name', async () => {
    expect((await run('acquire', 'app', '--device-root', root)).code).toBe(2);
    expect((await run('acquire', 'app', '--ttl', 'soon', '--device-root', root)).code).toBe(2);
    const bad = await run('acquire', '../x', '--ttl', '1m', '--device-root', root);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/not a lock name/);
  });
});
