// A LUKS2 container holding a filesystem image, made without opening it: no device mapper, no loop device, no
// mount. cryptsetup formats the header with a volume key we chose; the payload is encrypted here exactly as
// dm-crypt's aes-xts-plain64 does (each 512-byte sector on its own, its number from the start of the data segment
// as the XTS tweak, little-endian). Whoever holds the volume key can also read the payload back the same way.
import { execFile } from 'node:child_process';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { open, rm, stat, truncate } from 'node:fs/promises';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const LUKS_SECTOR_BYTES = 512;
/** where the encrypted payload starts: LUKS2's default header size (two metadata copies and the key slots area) */
export const LUKS_PAYLOAD_OFFSET = 16 * 1024 * 1024;
/** aes-xts with two AES-256 keys */
export const LUKS_VOLUME_KEY_BYTES = 64;
const CIPHER = 'aes-256-xts';
const CHUNK_SECTORS = 2048;
/** cryptsetup lives in /usr/sbin, which a test runner's PATH may lack */
const CRYPTSETUP = '/usr/sbin/cryptsetup';

/** The data partition's filesystem size inside a LUKS2 container of `containerBytes`. */
export function luksPayloadBytes(containerBytes: number): number {
  return containerBytes - LUKS_PAYLOAD_OFFSET;
}

/** Encrypts or decrypts whole sectors, the first of which has number `firstSector` in the segment. */
export function cryptSectors(
  direction: 'encrypt' | 'decrypt',
  volumeKey: Buffer,
  data: Buffer,
  firstSector: number,
): Buffer {
  if (data.length % LUKS_SECTOR_BYTES !== 0) throw new Error(`${data.length} bytes is not a whole number of sectors`);
  const out = Buffer.alloc(data.length);
  const tweak = Buffer.alloc(16);
  for (let offset = 0; offset < data.length; offset += LUKS_SECTOR_BYTES) {
    tweak.writeBigUInt64LE(BigInt(firstSector + offset / LUKS_SECTOR_BYTES), 0);
    const cipher =
      direction === 'encrypt' ? createCipheriv(CIPHER, volumeKey, tweak) : createDecipheriv(CIPHER, volumeKey, tweak);
    cipher.setAutoPadding(false);
    const sector = data.subarray(offset, offset + LUKS_SECTOR_BYTES);
    cipher.update(sector).copy(out, offset);
    cipher.final();
  }
  return out;
}

export interface LuksImageOptions {
  /** the filesystem image to put inside (at most luksPayloadBytes(size) bytes) */
  fsImage: string;
  /** the container file to write (replaced) */
  out: string;
  /** the container's size in bytes: the partition's */
  size: number;
  /** the key of the container's first key slot (the factory key) */
  keyFile: string;
  /** the volume key (64 bytes); random when absent */
  volumeKey?: Buffer;
}

/** Writes a LUKS2 container of `fsImage`; returns its volume key. */
export async function writeLuksImage(options: LuksImageOptions): Promise<Buffer> {
  const volumeKey = options.volumeKey ?? randomBytes(LUKS_VOLUME_KEY_BYTES);
  const fsBytes = (await stat(options.fsImage)).size;
  if (fsBytes > luksPayloadBytes(options.size)) {
    throw new Error(`${options.fsImage} (${fsBytes} bytes) does not fit in ${luksPayloadBytes(options.size)} bytes`);
  }
  const volumeKeyFile = `${options.out}.volume-key`;
  await truncate(await createEmpty(options.out), options.size);
  try {
    await writeSecret(volumeKeyFile, volumeKey);
    // a random key needs no stretching: PBKDF2 with 1000 iterations, as the agent's own key slots
    await execFileAsync(CRYPTSETUP, [
      'luksFormat',
      '--batch-mode',
      ...['--type', 'luks2', '--cipher', 'aes-xts-plain64', '--key-size', String(LUKS_VOLUME_KEY_BYTES * 8)],
      ...['--sector-size', String(LUKS_SECTOR_BYTES), '--offset', String(LUKS_PAYLOAD_OFFSET / LUKS_SECTOR_BYTES)],
      ...['--pbkdf', 'pbkdf2', '--pbkdf-force-iterations', '1000'],
      ...['--volume-key-file', volumeKeyFile, '--key-file', options.keyFile],
      options.out,
    ]);
  } finally {
    await rm(volumeKeyFile, { force: true });
  }
  await copySectors(
    'encrypt',
    volumeKey,
    { file: options.fsImage, offset: 0 },
    { file: options.out, offset: LUKS_PAYLOAD_OFFSET },
    fsBytes,
  );
  return volumeKey;
}

/** Writes the plaintext payload of the LUKS2 container `container` (made by writeLuksImage) to `out`. */
export async function readLuksPayload(container: string, volumeKey: Buffer, out: string): Promise<void> {
  const bytes = luksPayloadBytes((await stat(container)).size);
  await copySectors(
    'decrypt',
    volumeKey,
    { file: container, offset: LUKS_PAYLOAD_OFFSET },
    { file: await createEmpty(out), offset: 0 },
    bytes,
  );
}

interface FileRegion {
  file: string;
  offset: number;
}

/** Copies `bytes` from `from` to `to`, en- or decrypting them as the sectors of the LUKS2 data segment they are. */
async function copySectors(
  direction: 'encrypt' | 'decrypt',
  volumeKey: Buffer,
  from: FileRegion,
  to: FileRegion,
  bytes: number,
): Promise<void> {
  const input = await open(from.file, 'r');
  const output = await open(to.file, 'r+');
  try {
    const chunk = Buffer.alloc(CHUNK_SECTORS * LUKS_SECTOR_BYTES);
    for (let done = 0; done < bytes; done += chunk.length) {
      const length = Math.min(chunk.length, bytes - done);
      const { bytesRead } = await input.read(chunk, 0, length, from.offset + done);
      const whole = Math.ceil(length / LUKS_SECTOR_BYTES) * LUKS_SECTOR_BYTES;
      chunk.fill(0, bytesRead, whole);
      const result = cryptSectors(direction, volumeKey, chunk.subarray(0, whole), done / LUKS_SECTOR_BYTES);
      await output.write(result, 0, whole, to.offset + done);
    }
  } finally {
    await input.close();
    await output.close();
  }
}

/** an empty file at `path` (replacing it), returned */
async function createEmpty(path: string): Promise<string> {
  await (await open(path, 'w')).close();
  return path;
}

async function writeSecret(path: string, secret: Buffer): Promise<void> {
  const handle = await open(path, 'w', 0o600);
  try {
    await handle.writeFile(secret);
  } finally {
    await handle.close();
  }
}
