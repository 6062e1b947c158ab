import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { DeviceKey } from '@outpost/shared';

/**
 * How one simulated device authenticates: its bearer credential, or its key pair, of which the simulator gets
 * the private half (PKCS#8 PEM) and the control plane the public half. The benchmark hands the simulator a JSON
 * array of these, one per device.
 */
export type SimulatedIdentity = string | KeyPairIdentity;

export interface KeyPairIdentity {
  device: string;
  privateKeyPem: string;
}

/** A new ed25519 key pair, as the agent makes at its first start: the public half as SPKI PEM. */
export function newDeviceKeyPair(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** The identities in a file written by the benchmark; throws naming the file when it holds anything else. */
export function parseSimulatedIdentities(text: string, file: string): SimulatedIdentity[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || !parsed.every(isSimulatedIdentity)) {
    throw new Error(`${file} must hold a JSON array of credentials or {device, privateKeyPem} key pairs`);
  }
  return parsed;
}

function isSimulatedIdentity(value: unknown): value is SimulatedIdentity {
  if (typeof value === 'string') return true;
  if (typeof value !== 'object' || value === null) return false;
  const { device, privateKeyPem } = value as Record<string, unknown>;
  return typeof device === 'string' && typeof privateKeyPem === 'string';
}

/** The device key of a key-pair identity, held in memory (the agent's is in {device_root}/config/identity). */
export function inMemoryDeviceKey(identity: KeyPairIdentity): DeviceKey {
  const privateKey: KeyObject = createPrivateKey(identity.privateKeyPem);
  return {
    publicKey: () => Promise.resolve(createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString()),
    sign: (message) => Promise.resolve(sign(null, message, privateKey)),
  };
}
