import { describe, expect, it } from 'vitest';
import { parsePasswdLine } from '../../src/remote/shell-user.js';

describe('parsePasswdLine', () => {
  it('reads name, ids, home and shell', () => {
    expect(parsePasswdLine('operator:x:1001:1002:Operator,,,:/home/operator:/bin/bash\n')).toEqual({
      name: 'operator',
      uid: 1001,
      gid: 1002,
      home: '/home/operator',
      shell: '/bin/bash',
    });
  });

  it('an empty shell is /bin/sh', () => {
    expect(parsePasswdLine('svc:x:999:999::/var/lib/svc:')?.shell).toBe('/bin/sh');
  });

  it('a line without numeric ids or fields is unreadable', () => {
    expect(parsePasswdLine('svc:x:abc:1::/:/bin/sh')).toBeUndefined();
    expect(parsePasswdLine('svc:x:1')).toBeUndefined();
    expect(parsePasswdLine('')).toBeUndefined();
  });
});
