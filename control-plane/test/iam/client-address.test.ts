import { describe, expect, it } from 'vitest';
import { clientAddressOf, rateLimitKeyOf, TrustedProxies } from '../../src/iam/client-address.js';
import { ConfigError, loadServerConfig } from '../../src/server/config.js';

describe('TrustedProxies', () => {
  it('takes addresses and CIDR ranges of both families', () => {
    const trusted = new TrustedProxies(['10.0.0.0/8', '192.0.2.1', 'fd00::/8', '::1']);
    expect(['10.1.2.3', '192.0.2.1', 'fd12::1', '::1'].map((a) => trusted.has(a))).toEqual([true, true, true, true]);
    expect(['11.0.0.1', '192.0.2.2', 'fe80::1', 'not-an-address'].map((a) => trusted.has(a))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it.each(['proxy.example', '10.0.0.0/33', '::/129', '10.0.0.1/8/1', '10.0.0.0/x', ''])('refuses %j', (entry) => {
    expect(() => new TrustedProxies([entry])).toThrow(/is not an IP address or CIDR range/);
  });
});

describe('clientAddressOf', () => {
  const proxies = new TrustedProxies(['10.0.0.0/8']);

  it.each([
    ['a direct client', '198.51.100.1', undefined, '198.51.100.1'],
    ['a direct client that sends X-Forwarded-For', '198.51.100.1', '203.0.113.5', '198.51.100.1'],
    ['a client behind a trusted proxy', '10.0.0.2', '203.0.113.5', '203.0.113.5'],
    ['a client behind two trusted proxies', '10.0.0.2', '203.0.113.5, 10.0.0.3', '203.0.113.5'],
    ['a forged entry left of the real one', '10.0.0.2', '192.0.2.66, 203.0.113.5', '203.0.113.5'],
    ['a trusted proxy without the header', '10.0.0.2', undefined, '10.0.0.2'],
    ['garbage in the header', '10.0.0.2', 'garbage', '10.0.0.2'],
    ['an IPv4-mapped peer', '::ffff:198.51.100.1', undefined, '198.51.100.1'],
  ])('%s', (_case, peer, forwardedFor, expected) => {
    expect(clientAddressOf(peer, forwardedFor, proxies)).toBe(expected);
  });
});

describe('rateLimitKeyOf', () => {
  it('counts an IPv6 host by its /64 and an IPv4 host by its address', () => {
    expect(rateLimitKeyOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKeyOf('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKeyOf('2001:0db8::1')).toBe('2001:db8:0:0::/64');
    expect(rateLimitKeyOf('::1')).toBe('0:0:0:0::/64');
    expect(rateLimitKeyOf('198.51.100.1')).toBe('198.51.100.1');
  });
});

describe('--trusted-proxies', () => {
  it('is read from the flag or OUTPOST_TRUSTED_PROXIES, and a bad entry is a ConfigError naming it', () => {
    expect(loadServerConfig(['--trusted-proxies', '10.0.0.0/8, ::1'], {}).trustedProxies).toEqual([
      '10.0.0.0/8',
      '::1',
    ]);
    expect(loadServerConfig([], { OUTPOST_TRUSTED_PROXIES: '192.0.2.1' }).trustedProxies).toEqual(['192.0.2.1']);
    expect(loadServerConfig([], {}).trustedProxies).toBeUndefined();
    expect(() => loadServerConfig([], { OUTPOST_TRUSTED_PROXIES: '10.0.0.1,proxy.example' })).toThrow(
      new ConfigError(
        'invalid OUTPOST_TRUSTED_PROXIES: "proxy.example" is not an IP address or CIDR range (such as 10.0.0.1 or 10.0.0.0/8)',
      ),
    );
  });
});
