import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/client/loopback-host.js';

describe('isLoopbackHost', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    '127.0.0.1',
    '127.1.2.3',
    '127.1',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
  ])('%s is loopback', (host) => expect(isLoopbackHost(host)).toBe(true));

  it.each([
    '0.0.0.0',
    '::',
    '10.0.0.1',
    '128.0.0.1',
    'outpost.example.com',
    'localhost.example.com',
    '127.0.0.1.nip.io',
    '::ffff:10.0.0.1',
    '::2',
    '',
    'not a host',
  ])('%s is not loopback', (host) => expect(isLoopbackHost(host)).toBe(false));
});
