import { describe, expect, it } from 'vitest';
import { parseSshPublicKey } from '../../src/netconfig/index.js';
import { SSH_KEYS, sshBlob } from './ssh-keys.fixture.js';

const problemOf = (line: string): string => {
  const parsed = parseSshPublicKey(line);
  if (parsed.ok) throw new Error(`expected ${line} to be refused`);
  return parsed.problem;
};

describe('parseSshPublicKey', () => {
  it.each(Object.entries(SSH_KEYS))('accepts a %s key made by ssh-keygen, with its comment', (_, line) => {
    const parsed = parseSshPublicKey(line);
    expect(parsed).toMatchObject({ ok: true, key: { type: line.split(' ')[0], comment: 'me@laptop' } });
  });

  it('accepts a key without a comment, tabs between fields, and comments with spaces', () => {
    const [type, blob] = SSH_KEYS.ed25519.split(' ');
    expect(parseSshPublicKey(`${type} ${blob}`)).toMatchObject({ ok: true, key: { type: 'ssh-ed25519' } });
    expect(parseSshPublicKey(`${type}\t${blob}\tops key 2`)).toMatchObject({ ok: true, key: { comment: 'ops key 2' } });
  });

  it('accepts security keys (sk-ssh-ed25519, sk-ecdsa) with their application', () => {
    const ed = sshBlob('sk-ssh-ed25519@openssh.com', Buffer.alloc(32, 7), 'ssh:');
    expect(parseSshPublicKey(`sk-ssh-ed25519@openssh.com ${ed}`).ok).toBe(true);
    const point = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 9)]);
    const ec = sshBlob('sk-ecdsa-sha2-nistp256@openssh.com', 'nistp256', point, 'ssh:');
    expect(parseSshPublicKey(`sk-ecdsa-sha2-nistp256@openssh.com ${ec}`).ok).toBe(true);
    expect(problemOf(`sk-ssh-ed25519@openssh.com ${sshBlob('sk-ssh-ed25519@openssh.com', Buffer.alloc(32))}`)).toMatch(
      /lacks its application/,
    );
  });

  it('refuses types OpenSSH does not accept or that are not key types at all', () => {
    expect(problemOf('ssh-dss AAAAB3NzaC1kc3MAAACBAP')).toMatch(/"ssh-dss" is not an OpenSSH key type/);
    expect(problemOf('not-a-key')).toMatch(/is not an OpenSSH key type/);
    expect(problemOf('')).toMatch(/is not an OpenSSH key type/);
    expect(problemOf('command="ls" ssh-ed25519 AAAA')).toMatch(/is not an OpenSSH key type/);
  });

  it('refuses a blob whose embedded type differs from the one written', () => {
    const blob = SSH_KEYS.ed25519.split(' ')[1];
    expect(problemOf(`ssh-rsa ${blob}`)).toBe('key data is of type "ssh-ed25519", not ssh-rsa');
    const ec256 = SSH_KEYS.ecdsa256.split(' ')[1];
    expect(problemOf(`ecdsa-sha2-nistp384 ${ec256}`)).toMatch(/of type "ecdsa-sha2-nistp256", not ecdsa-sha2-nistp384/);
  });

  it('refuses data that is not base64, missing, truncated or followed by more bytes', () => {
    const [type, blob = ''] = SSH_KEYS.ed25519.split(' ');
    expect(problemOf(`${type}`)).toBe('has no key data after the type');
    expect(problemOf(`${type} not*base64!`)).toBe('key data is not base64');
    expect(problemOf(`${type} ${blob.slice(0, 40)}`)).toMatch(/not base64|truncated|not a 32-byte key/);
    const longer = sshBlob('ssh-ed25519', Buffer.alloc(32), 'extra');
    expect(problemOf(`ssh-ed25519 ${longer}`)).toBe('key data has bytes after the key');
    expect(problemOf(`ssh-ed25519 ${sshBlob('ssh-ed25519', Buffer.alloc(31))}`)).toMatch(/not a 32-byte key/);
  });

  it('refuses RSA keys under 1024 bits and EC keys whose curve or point is wrong', () => {
    const small = Buffer.concat([Buffer.from([0x00, 0xc3]), Buffer.alloc(63, 1)]); // 512 bits
    expect(problemOf(`ssh-rsa ${sshBlob('ssh-rsa', Buffer.from([1, 0, 1]), small)}`)).toBe(
      'RSA key of 512 bits is too small (at least 1024)',
    );
    const point = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 9)]);
    expect(problemOf(`ecdsa-sha2-nistp256 ${sshBlob('ecdsa-sha2-nistp256', 'nistp384', point)}`)).toMatch(
      /names curve "nistp384", not nistp256/,
    );
    expect(problemOf(`ecdsa-sha2-nistp256 ${sshBlob('ecdsa-sha2-nistp256', 'nistp256', point.subarray(1))}`)).toMatch(
      /not a point/,
    );
  });

  it('refuses line breaks and control characters, which would smuggle a second key into authorized_keys', () => {
    expect(problemOf(`${SSH_KEYS.ed25519}\n${SSH_KEYS.rsa}`)).toMatch(/control characters/);
    expect(problemOf(`${SSH_KEYS.ed25519}\r`)).toMatch(/control characters/);
    expect(problemOf(`${SSH_KEYS.ed25519}\u0000`)).toMatch(/control characters/);
  });
});
