import { describe, expect, it } from 'vitest';
import {
  durationProblem,
  familyOf,
  isCidr,
  isIpAddress,
  isIpOrCidr,
  parseByteSize,
  parseCidr,
  parseDuration,
} from '../../src/netconfig/index.js';

describe('IP addresses and CIDR blocks', () => {
  it.each(['10.0.0.1', '0.0.0.0', '255.255.255.255', '::1', '2001:db8::1', 'fe80::1', '::ffff:10.0.0.1'])(
    '%s is an address',
    (text) => expect(isIpAddress(text)).toBe(true),
  );

  it.each([
    'not-an-ip',
    '10.0.0',
    '10.0.0.256',
    '010.0.0.1',
    '10.0.0.1/24',
    '2001:db8::g',
    'fe80::1%eth0',
    '',
    ' 10.0.0.1',
  ])('%j is not an address', (text) => expect(isIpAddress(text)).toBe(false));

  it('parses CIDR blocks of both families within their prefix lengths', () => {
    expect(parseCidr('10.0.0.1/24')).toEqual({ address: '10.0.0.1', prefixLength: 24, family: 'ipv4' });
    expect(parseCidr('2001:db8::1/64')).toEqual({ address: '2001:db8::1', prefixLength: 64, family: 'ipv6' });
    expect(isCidr('0.0.0.0/0')).toBe(true);
    expect(isCidr('::/0')).toBe(true);
    expect(isCidr('10.0.0.0/32')).toBe(true);
    expect(isCidr('2001:db8::/128')).toBe(true);
  });

  it.each([
    '10.0.0.1',
    '10.0.0.1/33',
    '2001:db8::/129',
    '10.0.0.1/',
    '10.0.0.1/-1',
    '10.0.0.1/2a',
    'host/24',
    '10.0.0.1/24/1',
  ])('%j is not a CIDR block', (text) => expect(isCidr(text)).toBe(false));

  it('allow-lists take either, and the family of either is known', () => {
    expect(isIpOrCidr('192.168.1.7')).toBe(true);
    expect(isIpOrCidr('192.168.0.0/16')).toBe(true);
    expect(isIpOrCidr('not-an-ip')).toBe(false);
    expect(familyOf('10.0.0.0/8')).toBe('ipv4');
    expect(familyOf('fd00::1')).toBe('ipv6');
    expect(familyOf('nope')).toBeUndefined();
  });
});

describe('durations', () => {
  it('reads seconds, minutes, hours, days, milliseconds and their sums', () => {
    expect(parseDuration('300s')).toBe(300_000);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('2d')).toBe(172_800_000);
    expect(parseDuration('250ms')).toBe(250);
  });

  it.each(['300', '', 's', '5 m', '-5s', '1w', '5M', 'five minutes', '1h 30m', '1.s'])('%j is no duration', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );

  it('names the problem: malformed, or out of range with the range', () => {
    expect(durationProblem('300s', 1000, 60_000)).toBe('300s is out of range (1s to 60s)');
    expect(durationProblem('soon', 1000, 60_000)).toBe('"soon" is not a duration such as "300s", "5m" or "1h30m"');
    expect(durationProblem('30s', 1000, 60_000)).toBeUndefined();
  });
});

describe('byte sizes', () => {
  it('reads journald sizes, 1024-based', () => {
    expect(parseByteSize('4096')).toBe(4096);
    expect(parseByteSize('64K')).toBe(65_536);
    expect(parseByteSize('200M')).toBe(200 * 1024 ** 2);
    expect(parseByteSize('1.5G')).toBe(1.5 * 1024 ** 3);
  });

  it.each(['', 'M', '200MB', '200 M', '-1M', '2m', 'lots'])('%j is no size', (text) =>
    expect(parseByteSize(text)).toBeUndefined(),
  );
});
