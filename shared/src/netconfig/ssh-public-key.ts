/** The OpenSSH public key types an authorized key may have. */
export const SSH_KEY_TYPES = [
  'ssh-ed25519',
  'ssh-rsa',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
] as const;
export type SshKeyType = (typeof SSH_KEY_TYPES)[number];

export interface SshPublicKey {
  type: SshKeyType;
  /** the key blob, base64 as written */
  base64: string;
  comment?: string;
}

export type SshKeyParse = { ok: true; key: SshPublicKey } | { ok: false; problem: string };

/** Uncompressed EC point sizes (0x04 || X || Y) by curve. */
const EC_POINT_BYTES: Readonly<Record<string, number>> = { nistp256: 65, nistp384: 97, nistp521: 133 };
const MIN_RSA_BITS = 1024; // OpenSSH refuses smaller moduli
const MAX_LINE = 16_384;

/**
 * Parses one authorized key as OpenSSH writes it, `type base64 [comment]` (options are fields of their own):
 * the type must be one OpenSSH accepts, and the base64 blob must decode to a key of that same type.
 */
export function parseSshPublicKey(line: string): SshKeyParse {
  const fail = (problem: string): SshKeyParse => ({ ok: false, problem });
  if (line.length > MAX_LINE) return fail(`is longer than ${MAX_LINE} characters`);
  // one line only: a newline would let a second, unchecked key into authorized_keys
  if (/[\p{Cc}]/u.test(line.replace(/\t/g, ' '))) return fail('holds control characters (one key per entry)');
  const [type = '', base64 = '', ...rest] = line.trim().split(/[ \t]+/);
  if (!isKeyType(type)) {
    return fail(`${JSON.stringify(type.slice(0, 40))} is not an OpenSSH key type (one of ${SSH_KEY_TYPES.join(', ')})`);
  }
  if (base64 === '') return fail('has no key data after the type');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0) return fail('key data is not base64');
  const problem = blobProblem(type, Buffer.from(base64, 'base64'));
  if (problem !== undefined) return fail(problem);
  const comment = rest.join(' ');
  return { ok: true, key: { type, base64, ...(comment === '' ? {} : { comment }) } };
}

const isKeyType = (text: string): text is SshKeyType => (SSH_KEY_TYPES as readonly string[]).includes(text);

/** What is wrong with a key blob of the given type, or undefined when it is well formed. */
function blobProblem(type: SshKeyType, blob: Buffer): string | undefined {
  const reader = new BlobReader(blob);
  const embedded = reader.string()?.toString('latin1');
  if (embedded === undefined) return 'key data is truncated';
  if (embedded !== type) return `key data is of type ${JSON.stringify(embedded.slice(0, 40))}, not ${type}`;
  const fieldsProblem = keyFieldsProblem(type, reader);
  if (fieldsProblem !== undefined) return fieldsProblem;
  return reader.atEnd() ? undefined : 'key data has bytes after the key';
}

function keyFieldsProblem(type: SshKeyType, reader: BlobReader): string | undefined {
  switch (type) {
    case 'ssh-ed25519':
    case 'sk-ssh-ed25519@openssh.com': {
      if (reader.string()?.length !== 32) return 'ed25519 key data is not a 32-byte key';
      return type === 'ssh-ed25519' ? undefined : applicationProblem(reader);
    }
    case 'ssh-rsa': {
      const exponent = reader.string();
      const modulus = reader.string();
      if (exponent === undefined || modulus === undefined || exponent.length === 0) return 'key data is truncated';
      const bits = significantBits(modulus);
      return bits < MIN_RSA_BITS ? `RSA key of ${bits} bits is too small (at least ${MIN_RSA_BITS})` : undefined;
    }
    case 'ecdsa-sha2-nistp256':
    case 'ecdsa-sha2-nistp384':
    case 'ecdsa-sha2-nistp521':
    case 'sk-ecdsa-sha2-nistp256@openssh.com': {
      const curve = reader.string()?.toString('latin1');
      const expected = /nistp\d+/.exec(type)?.[0] ?? '';
      if (curve !== expected) return `key data names curve ${JSON.stringify(curve ?? '')}, not ${expected}`;
      const point = reader.string();
      if (point === undefined || point.length !== EC_POINT_BYTES[expected] || point[0] !== 0x04)
        return `${expected} key data is not a point`;
      return type.startsWith('sk-') ? applicationProblem(reader) : undefined;
    }
  }
}

/** Security keys carry the application (usually "ssh:") they were made for. */
const applicationProblem = (reader: BlobReader): string | undefined =>
  reader.string() === undefined ? 'security key data lacks its application' : undefined;

function significantBits(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i] ?? 0));
}

/** Reads the length-prefixed strings of the SSH wire format (RFC 4251 §5). */
class BlobReader {
  private offset = 0;
  constructor(private readonly blob: Buffer) {}

  string(): Buffer | undefined {
    if (this.offset + 4 > this.blob.length) return undefined;
    const length = this.blob.readUInt32BE(this.offset);
    const start = this.offset + 4;
    if (start + length > this.blob.length) return undefined;
    this.offset = start + length;
    return this.blob.subarray(start, start + length);
  }

  atEnd(): boolean {
    return this.offset === this.blob.length;
  }
}
