import { checkSshConfig, sshConfigSchema } from '@outpost/shared';
import { describe, expect, it } from 'vitest';
import { checkedPart } from '../../src/config-apply/checked-part.js';

describe('checkedPart', () => {
  it('names the first schema issue by its path under the field', () => {
    const checked = checkedPart({ port: 'twenty-two' }, sshConfigSchema, 'sshConfig', checkSshConfig);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error).toMatch(/^sshConfig\.port: /);
  });

  it("reports the part's own rules when the schema passes", () => {
    const checked = checkedPart({ ipAllowList: ['not an address'] }, sshConfigSchema, 'sshConfig', checkSshConfig);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error).toContain('sshConfig.ipAllowList');
  });

  it('returns the parsed value when both pass', () => {
    expect(checkedPart({ port: 2222 }, sshConfigSchema, 'sshConfig', checkSshConfig)).toEqual({
      ok: true,
      value: { port: 2222 },
    });
  });
});
