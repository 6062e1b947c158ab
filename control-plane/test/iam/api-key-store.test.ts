import { createHash } from 'node:crypto';
import { ApiError } from '@outpost/shared';
import { afterEach, expect, it } from 'vitest';
import { ApiKeyStore, adminKeyAnnouncement } from '../../src/iam/api-key-store.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import type { ApiKeyRecords } from '../../src/resources/storage/stores/api-key-records.js';
import { describeStorages } from '../helpers/storages.js';
import { reopenStorage } from '../helpers/reopen-storage.js';

const DEVICE_READER = [{ permission: 'services/devices.outpost/permissions/devices.get', scope: 'projects/p' }];

describeStorages('ApiKeyStore', (fresh) => {
  const reopened: { close(): void }[] = [];
  afterEach(() => reopened.splice(0).forEach((storage) => storage.close()));
  /** A fresh store's API keys, and the same keys through a second connection, as a restart (or replica) sees them. */
  const open = (): { records: ApiKeyRecords; reopen(): ApiKeyRecords } => {
    const storage = fresh();
    return {
      records: new ResourceEngine(storage).stores.apiKeys,
      reopen: () => {
        const again = reopenStorage(storage);
        reopened.push(again);
        return new ResourceEngine(again).stores.apiKeys;
      },
    };
  };

  it('creates a key, returns its secret once, and stores only its sha256', () => {
    const { records } = open();
    const store = new ApiKeyStore(records, { now: () => new Date('2025-01-02T03:04:05.000Z') });
    const { apiKey, secret } = store.create({ displayName: 'reader', grants: DEVICE_READER });

    const id = apiKey.name.replace('apiKeys/', '');
    expect(id).toMatch(/^[a-z][a-z0-9]{11}$/);
    expect(secret).toMatch(new RegExp(`^opk_${id}_[A-Za-z0-9_-]{43}$`));
    expect(apiKey).toEqual({
      name: apiKey.name,
      displayName: 'reader',
      grants: DEVICE_READER,
      createTime: '2025-01-02T03:04:05.000Z',
    });
    expect(JSON.stringify(apiKey)).not.toContain(secret);

    const stored = records.list();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(secret.slice(-20));
    expect(Buffer.from(stored[0]!.secretSha256)).toEqual(createHash('sha256').update(secret).digest());
  });

  it('authenticates the secret and nothing else', () => {
    const store = new ApiKeyStore(open().records);
    const { apiKey, secret } = store.create({ displayName: 'reader', grants: DEVICE_READER });
    expect(store.authenticate(secret)).toEqual({ name: apiKey.name, displayName: 'reader', grants: DEVICE_READER });
    expect(store.authenticate(`${secret}x`)).toBeNull();
    expect(store.authenticate(secret.slice(0, -1))).toBeNull();
    expect(store.authenticate('')).toBeNull();
    expect(store.authenticate('opk_nosuchkey_abc')).toBeNull();
    expect(store.authenticate('not-a-key-at-all')).toBeNull();
  });

  it('lists, gets and revokes; a revoked key no longer authenticates', () => {
    let clock = 0;
    const store = new ApiKeyStore(open().records, { now: () => new Date(Date.UTC(2025, 0, 1, 0, 0, clock++)) });
    const a = store.create({ displayName: 'a', grants: DEVICE_READER });
    const b = store.create({ displayName: 'b', grants: DEVICE_READER });
    expect(store.list().map((k) => k.displayName)).toEqual(['a', 'b']);
    const idOfB = b.apiKey.name.split('/')[1] ?? '';
    expect(store.get(idOfB)).toEqual(b.apiKey);

    store.revoke(idOfB);
    expect(store.authenticate(b.secret)).toBeNull();
    expect(store.authenticate(a.secret)).not.toBeNull();
    expect(store.list().map((k) => k.displayName)).toEqual(['a']);
    expect(() => store.get(idOfB)).toThrow(`apiKeys/${idOfB} not found`);
    expect(() => store.revoke(idOfB)).toThrow(expect.objectContaining({ status: 'NOT_FOUND' }) as Error);
  });

  it('refuses invalid keys with INVALID_ARGUMENT', () => {
    const store = new ApiKeyStore(open().records);
    const bad = [
      { displayName: '', grants: DEVICE_READER },
      { displayName: 'x', grants: [] },
      { displayName: 'x', grants: [{ permission: 'devices.get', scope: '*' }] },
      { displayName: 'x', grants: [{ permission: '*', scope: 'projects/-' }] },
      { displayName: 'x', grants: [{ permission: '*', scope: '' }] },
      { displayName: 'x', grants: [{ permission: '*', scope: 'projects//p' }] },
    ];
    for (const input of bad) {
      expect(() => store.create(input), JSON.stringify(input)).toThrow(ApiError);
      expect(() => store.create(input)).toThrow(expect.objectContaining({ status: 'INVALID_ARGUMENT' }) as Error);
    }
    expect(store.list()).toEqual([]);
  });

  it('generates the admin key on first start only, and it holds every permission', () => {
    const t = open();
    const first = new ApiKeyStore(t.records).ensureBootstrapAdminKey();
    expect(first.created).toBe(true);
    expect(first.secret).toMatch(/^opk_admin_/);
    expect(adminKeyAnnouncement(first)).toBe(`Admin API key (shown once): ${first.secret}`);

    const restarted = new ApiKeyStore(t.reopen());
    const second = restarted.ensureBootstrapAdminKey();
    expect(second).toEqual({ created: false });
    expect(adminKeyAnnouncement(second)).toBeUndefined();
    expect(restarted.authenticate(first.secret ?? '')).toEqual({
      name: 'apiKeys/admin',
      displayName: 'admin',
      grants: [{ permission: '*', scope: '*' }],
    });
  });

  it('registers and rotates the admin key given by OUTPOST_ADMIN_KEY, never echoing it', () => {
    const t = open();
    const store = new ApiKeyStore(t.records);
    const registered = store.ensureBootstrapAdminKey('first-admin-secret-0123456789abcdef');
    expect(registered).toEqual({ created: true });
    expect(adminKeyAnnouncement(registered)).toBeUndefined();
    expect(store.authenticate('first-admin-secret-0123456789abcdef')?.name).toBe('apiKeys/admin');

    const restarted = new ApiKeyStore(t.reopen());
    expect(restarted.ensureBootstrapAdminKey('first-admin-secret-0123456789abcdef')).toEqual({ created: false });
    expect(restarted.ensureBootstrapAdminKey('second-admin-secret-0123456789abcdef')).toEqual({ created: false });
    expect(restarted.authenticate('first-admin-secret-0123456789abcdef')).toBeNull();
    expect(restarted.authenticate('second-admin-secret-0123456789abcdef')?.grants).toEqual([
      { permission: '*', scope: '*' },
    ]);
    expect(restarted.list().map((k) => k.name)).toEqual(['apiKeys/admin']);
  });

  it('replaces a generated admin key by the configured one and then keeps it without the variable', () => {
    const t = open();
    const store = new ApiKeyStore(t.records);
    const generated = store.ensureBootstrapAdminKey();
    store.ensureBootstrapAdminKey('configured-admin-secret-0123456789abcdef');
    expect(store.authenticate(generated.secret ?? '')).toBeNull();
    expect(store.ensureBootstrapAdminKey()).toEqual({ created: false });
    expect(store.authenticate('configured-admin-secret-0123456789abcdef')?.name).toBe('apiKeys/admin');
  });

  it('authenticates an admin secret that looks like another key', () => {
    const store = new ApiKeyStore(open().records);
    store.ensureBootstrapAdminKey('opk_other_lookalike-secret-0123456789abcdef');
    expect(store.authenticate('opk_other_lookalike-secret-0123456789abcdef')?.name).toBe('apiKeys/admin');
  });

  it('refuses an admin secret shorter than 32 characters', () => {
    const store = new ApiKeyStore(open().records);
    expect(() => store.ensureBootstrapAdminKey('short')).toThrow(/at least 32 characters/);
    expect(() => store.ensureBootstrapAdminKey('x'.repeat(31))).toThrow(/at least 32 characters/);
    expect(store.list()).toEqual([]);
    expect(store.ensureBootstrapAdminKey('x'.repeat(32))).toEqual({ created: true });
  });

  it('keeps the organizations a grant was handed out through', () => {
    const t = open();
    const grants = [
      { permission: '*', scope: 'projects/p', grantedThrough: ['organizations/o'] },
      { permission: '*', scope: 'projects/q' },
    ];
    const { apiKey, secret } = new ApiKeyStore(t.records).create({ displayName: 'minted', grants });
    expect(apiKey.grants).toEqual(grants);
    expect(new ApiKeyStore(t.reopen()).authenticate(secret)?.grants).toEqual(grants);
  });

  it('is shared by every control plane on the database: created on one, it authenticates and is revoked on another', () => {
    const t = open();
    const one = new ApiKeyStore(t.records);
    const other = new ApiKeyStore(t.reopen());
    // replicas starting together agree on one generated admin key
    const generated = one.ensureBootstrapAdminKey();
    expect(other.ensureBootstrapAdminKey()).toEqual({ created: false });
    expect(other.authenticate(generated.secret ?? '')?.name).toBe('apiKeys/admin');

    const { apiKey, secret } = one.create({ displayName: 'shared', grants: DEVICE_READER });
    expect(other.authenticate(secret)?.name).toBe(apiKey.name);
    other.revoke(apiKey.name.replace('apiKeys/', ''));
    expect(one.authenticate(secret)).toBeNull();
    expect(one.list().map((k) => k.name)).toEqual(['apiKeys/admin']);
  });
});
