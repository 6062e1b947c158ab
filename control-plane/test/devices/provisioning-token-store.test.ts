/**
 * Provisioning tokens on each store (a real SQLite file, a real PostgreSQL database): expiry, purging, use
 * counts, and one database shared by every control plane on it.
 */
import { describe, expect, it } from 'vitest';
import { ProvisioningTokens } from '../../src/devices/provisioning-tokens.js';
import { hashSecret } from '../../src/devices/secret-hash.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { describeStorages } from '../helpers/storages.js';
import { reopenStorage } from '../helpers/reopen-storage.js';

const parent = 'projects/tokens/regions/eu';

describeStorages('provisioning tokens', (fresh) => {
  describe('expired tokens', () => {
    it('are left out of lists, refused, and purged by the next write', () => {
      const records = new ResourceEngine(fresh()).stores.provisioningTokens;
      let now = new Date('2030-01-01T00:00:00Z');
      const tokens = new ProvisioningTokens(records, () => now);
      const old = tokens.create(parent, 60);
      now = new Date('2030-01-01T00:01:00Z'); // its expireTime
      expect(tokens.list(parent)).toEqual([]);
      expect(tokens.verify(old.token)).toBe('unknown or expired');
      expect(records.bySecret(hashSecret(old.token))).toBeDefined(); // reads leave it where it is
      expect(tokens.consume(old.token)).toBe(false);
      expect(records.bySecret(hashSecret(old.token))).toBeUndefined();
      const fresher = tokens.create(parent, 60);
      expect(tokens.list(parent).map((t) => t.id)).toEqual([fresher.id]);
    });
  });

  it('count uses up to maxUses, list oldest first without the secret, and revoke by id within the parent', () => {
    let clock = Date.parse('2030-01-01T00:00:00Z');
    const tokens = new ProvisioningTokens(new ResourceEngine(fresh()).stores.provisioningTokens, () => {
      clock += 1000;
      return new Date(clock);
    });
    const limited = tokens.create(parent, 3600, 2);
    const unlimited = tokens.create(parent, 3600);
    expect(limited).toMatchObject({ parent, maxUses: 2, uses: 0 });
    expect(limited.id).toBe(hashSecret(limited.token).subarray(0, 8).toString('hex'));
    expect(unlimited).not.toHaveProperty('maxUses');

    expect(tokens.consume(limited.token)).toBe(true);
    expect(tokens.verify(limited.token)).toMatchObject({ uses: 1, maxUses: 2 });
    expect(tokens.consume(limited.token)).toBe(true);
    expect(tokens.verify(limited.token)).toBe('used up');
    expect(tokens.consume(limited.token)).toBe(false);
    for (let i = 0; i < 3; i++) expect(tokens.consume(unlimited.token)).toBe(true);

    const listed = tokens.list(parent);
    expect(listed.map((t) => [t.id, t.uses])).toEqual([
      [limited.id, 2],
      [unlimited.id, 3],
    ]);
    expect(JSON.stringify(listed)).not.toContain('opt_');
    expect(tokens.revoke('projects/tokens/regions/us', limited.id)).toBe(false);
    expect(tokens.revoke(parent, limited.id)).toBe(true);
    expect(tokens.revoke(parent, limited.id)).toBe(false);
    expect(tokens.verify(limited.token)).toBe('unknown or expired');
    expect(tokens.list(parent).map((t) => t.id)).toEqual([unlimited.id]);
  });

  it('are shared by every control plane on the database', () => {
    const storage = fresh();
    const again = reopenStorage(storage);
    try {
      const now = (): Date => new Date('2030-01-01T00:00:00Z');
      const one = new ProvisioningTokens(new ResourceEngine(storage).stores.provisioningTokens, now);
      const other = new ProvisioningTokens(new ResourceEngine(again).stores.provisioningTokens, now);
      const { token, id } = one.create(parent, 600, 1);
      expect(other.list(parent).map((t) => t.id)).toEqual([id]);
      expect(other.consume(token)).toBe(true);
      expect(one.consume(token)).toBe(false);
      expect(one.verify(token)).toBe('used up');
    } finally {
      again.close();
    }
  });
});
