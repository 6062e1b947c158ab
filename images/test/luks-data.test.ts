import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { LUKS_PAYLOAD_OFFSET, cryptSectors, readLuksPayload, writeLuksImage } from '../lib/luks-data.js';

const execFileAsync = promisify(execFile);
const CRYPTSETUP = '/usr/sbin/cryptsetup';
const MIB = 1024 * 1024;

describe('LUKS2 data partition made without the device mapper', () => {
  const dir = mkdtempSync(join(tmpdir(), 'luks-data-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('formats a header cryptsetup reads, opened by the key file only, with the payload encrypted', async () => {
    const fs = join(dir, 'fs.img');
    const plaintext = Buffer.concat([Buffer.from('outpost data partition '.repeat(40)), randomBytes(2 * MIB)]);
    writeFileSync(fs, plaintext.subarray(0, 2 * MIB));
    const key = join(dir, 'factory.key');
    writeFileSync(key, randomBytes(32).toString('hex'));
    const container = join(dir, 'data.img');
    const volumeKey = await writeLuksImage({ fsImage: fs, out: container, size: 20 * MIB, keyFile: key });

    const { stdout } = await execFileAsync(CRYPTSETUP, ['luksDump', '--dump-json-metadata', container]);
    const metadata = JSON.parse(stdout) as {
      segments: Record<string, { offset: string; encryption: string; sector_size: number; iv_tweak: string }>;
      keyslots: Record<string, unknown>;
    };
    expect(metadata.segments['0']).toMatchObject({
      offset: String(LUKS_PAYLOAD_OFFSET),
      encryption: 'aes-xts-plain64',
      sector_size: 512,
      iv_tweak: '0',
    });
    expect(Object.keys(metadata.keyslots)).toEqual(['0']);
    await execFileAsync(CRYPTSETUP, ['open', '--test-passphrase', '--key-file', key, container]);
    const wrong = join(dir, 'wrong.key');
    writeFileSync(wrong, 'not the key');
    await expect(
      execFileAsync(CRYPTSETUP, ['open', '--test-passphrase', '--key-file', wrong, container]),
    ).rejects.toThrow();

    // the payload on the disk is not the plaintext, and the volume key reads it back
    const onDisk = readFileSync(container).subarray(LUKS_PAYLOAD_OFFSET, LUKS_PAYLOAD_OFFSET + 2 * MIB);
    expect(onDisk.equals(plaintext.subarray(0, 2 * MIB))).toBe(false);
    const back = join(dir, 'back.img');
    await readLuksPayload(container, volumeKey, back);
    const read = readFileSync(back);
    expect(read).toHaveLength(20 * MIB - LUKS_PAYLOAD_OFFSET);
    expect(read.subarray(0, 2 * MIB).equals(plaintext.subarray(0, 2 * MIB))).toBe(true);
  });

  it("encrypts each sector with its number as the tweak, as dm-crypt's plain64 IV", () => {
    const key = randomBytes(64);
    const sector = Buffer.alloc(512, 7);
    const twice = Buffer.concat([sector, sector]);
    const encrypted = cryptSectors('encrypt', key, twice, 5);
    // the same bytes in two sectors encrypt differently, and sector 6 alone is sector 6 of the pair
    expect(encrypted.subarray(0, 512).equals(encrypted.subarray(512))).toBe(false);
    expect(cryptSectors('encrypt', key, sector, 6).equals(encrypted.subarray(512))).toBe(true);
    expect(cryptSectors('decrypt', key, encrypted, 5).equals(twice)).toBe(true);
    expect(() => cryptSectors('encrypt', key, Buffer.alloc(100), 0)).toThrow(/whole number of sectors/);
  });

  it('refuses a filesystem larger than the payload', async () => {
    const fs = join(dir, 'big.img');
    writeFileSync(fs, Buffer.alloc(5 * MIB));
    const key = join(dir, 'k');
    writeFileSync(key, 'k');
    await expect(
      writeLuksImage({ fsImage: fs, out: join(dir, 'small.img'), size: 20 * MIB, keyFile: key }),
    ).rejects.toThrow(/does not fit/);
  });
});
