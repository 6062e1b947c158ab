import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound, writeFileAtomic } from '../files/atomic-file.js';
import type { DeviceKey } from './device-key.js';

/** The file holding the private key (PKCS#8 PEM) in the identity directory, `{device_root}/config/identity/`. */
export const PRIVATE_KEY_FILE = 'private-key.pem';
/** The matching public key (SPKI PEM), kept beside it so it can be shown without reading the private key. */
export const PUBLIC_KEY_FILE = 'public-key.pem';

/** An ed25519 key pair kept in files of mode 0600 under `dir` (mode 0700). */
class FileDeviceKey implements DeviceKey {
  constructor(
    private readonly privateKey: KeyObject,
    private readonly publicKeyPem: string,
  ) {}

  publicKey(): Promise<string> {
    return Promise.resolve(this.publicKeyPem);
  }

  sign(message: Uint8Array): Promise<Buffer> {
    return Promise.resolve(sign(null, message, this.privateKey));
  }
}

/** The key pair stored in `dir`, or undefined when there is none. */
export async function readFileDeviceKey(dir: string): Promise<DeviceKey | undefined> {
  let pem: string;
  try {
    pem = await readFile(join(dir, PRIVATE_KEY_FILE), 'utf8');
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519') {
    throw new Error(`${join(dir, PRIVATE_KEY_FILE)} is not an ed25519 private key`);
  }
  return new FileDeviceKey(privateKey, publicPem(privateKey));
}

/** A new key pair in `dir`, replacing any earlier one (re-keying). */
export async function createFileDeviceKey(dir: string): Promise<DeviceKey> {
  const { privateKey } = generateKeyPairSync('ed25519');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  // the public file goes first: a private key without its public half would still be a complete identity
  await rm(join(dir, PRIVATE_KEY_FILE), { force: true });
  await writeFileAtomic(join(dir, PUBLIC_KEY_FILE), publicPem(privateKey), 0o600);
  await writeFileAtomic(
    join(dir, PRIVATE_KEY_FILE),
    privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    0o600,
  );
  return new FileDeviceKey(privateKey, publicPem(privateKey));
}

/** A new key pair waiting beside `dir` until the server has its public key. */
export interface StagedDeviceKey {
  key: DeviceKey;
  /** Puts the new key pair in place of the one in `dir` (call once the server stores the public key). */
  commit(): Promise<void>;
  /** Throws the new key pair away (the server refused it). */
  discard(): Promise<void>;
}

/**
 * A new key pair for re-keying or enrolling `dir`: it is written beside it, so that the key in use (or the
 * credential) keeps working until the server has taken the new public key.
 */
export async function stageFileDeviceKey(dir: string): Promise<StagedDeviceKey> {
  const staging = `${dir}.new`;
  const retired = `${dir}.old`;
  await rm(staging, { recursive: true, force: true });
  const key = await createFileDeviceKey(staging);
  return {
    key,
    async commit() {
      await rm(retired, { recursive: true, force: true });
      await rename(dir, retired).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
      await rename(staging, dir);
      await rm(retired, { recursive: true, force: true });
    },
    discard: () => rm(staging, { recursive: true, force: true }),
  };
}

/** The key pair in `dir`, made at the first call. */
export async function loadOrCreateFileDeviceKey(dir: string): Promise<DeviceKey> {
  return (await readFileDeviceKey(dir)) ?? (await createFileDeviceKey(dir));
}

const publicPem = (privateKey: KeyObject): string =>
  createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
