import { describe, expect, it } from 'vitest';
import { parseForward } from '../../src/cli/remote-commands.js';
import { UsageError } from '../../src/cli/usage-error.js';

describe('outpost devices port-forward [LOCAL_ADDR:]LOCAL_PORT:TARGET_HOST:TARGET_PORT', () => {
  it('the local address defaults to 127.0.0.1', () => {
    expect(parseForward('8080:127.0.0.1:80')).toEqual({
      localAddress: '127.0.0.1',
      localPort: 8080,
      targetHost: '127.0.0.1',
      targetPort: 80,
    });
    expect(parseForward('0.0.0.0:0:db.local:5432')).toEqual({
      localAddress: '0.0.0.0',
      localPort: 0,
      targetHost: 'db.local',
      targetPort: 5432,
    });
  });

  it('anything else is a usage error naming the part', () => {
    expect(() => parseForward('8080:80')).toThrow(UsageError);
    expect(() => parseForward('8080:host:0')).toThrow(/TARGET_PORT "0"/);
    expect(() => parseForward('x:host:80')).toThrow(/LOCAL_PORT "x"/);
    expect(() => parseForward('8080::80')).toThrow(/no target host/);
    expect(() => parseForward('70000:host:80')).toThrow(/LOCAL_PORT "70000"/);
  });
});
