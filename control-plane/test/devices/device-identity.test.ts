/**
 * DeviceCredentials on each store (a real SQLite file, a real PostgreSQL database): a bearer credential works
 * until it is replaced or revoked; with key pairs a proof (a signed challenge) authenticates its device once;
 * replays, forgeries, proofs for another device and expired challenges authenticate nobody.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { deviceProofMessage, formatDeviceProof } from '@outpost/shared';
import { DeviceCredentials } from '../../src/devices/device-credentials.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { describeStorages } from '../helpers/storages.js';
import {
  CHALLENGE_TTL_MS,
  MAX_CHALLENGES_PER_DEVICE,
  parseDevicePublicKey,
} from '../../src/devices/device-identity.js';

const DEVICE = 'projects/p/regions/r/devices/d1';
const OTHER = 'projects/p/regions/r/devices/d2';

const newKey = (): { privateKey: KeyObject; publicPem: string } => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
};
const proof = (device: string, challenge: string, privateKey: KeyObject): string =>
  formatDeviceProof({ device, challenge, signature: sign(null, deviceProofMessage(device, challenge), privateKey) });

describe('parseDevicePublicKey', () => {
  it('takes an ed25519 SPKI PEM and refuses anything else', () => {
    expect(parseDevicePublicKey(newKey().publicPem)).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' });
    expect(() => parseDevicePublicKey(rsa.toString())).toThrow(/ed25519/);
    expect(() => parseDevicePublicKey('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n')).toThrow(
      /readable/,
    );
    expect(() => parseDevicePublicKey(42)).toThrow(/SPKI PEM/);
  });
});

describeStorages('device credentials', (fresh) => {
  let clock: number;
  let credentials: DeviceCredentials;
  beforeEach(() => {
    clock = Date.parse('2030-01-01T00:00:00Z');
    credentials = new DeviceCredentials(new ResourceEngine(fresh()).stores.deviceCredentials, () => new Date(clock));
  });

  describe('a device with a bearer credential', () => {
    it('is authenticated by it until a new one is issued or it is revoked; the listeners are told each time', () => {
      const revoked: string[] = [];
      credentials.onRevoked((device) => revoked.push(device));
      const first = credentials.issue(DEVICE);
      const other = credentials.issue(OTHER);
      expect(first).toMatch(/^odc_/);
      expect(credentials.deviceOf(first)).toBe(DEVICE);
      expect(credentials.deviceOf(other)).toBe(OTHER);
      expect(credentials.deviceOf(`${first}x`)).toBeUndefined();
      expect(credentials.hasPublicKey(DEVICE)).toBe(false);

      const second = credentials.issue(DEVICE);
      expect(credentials.deviceOf(first)).toBeUndefined();
      expect(credentials.deviceOf(second)).toBe(DEVICE);
      expect(credentials.revoke(DEVICE)).toBe(true);
      expect(credentials.deviceOf(second)).toBeUndefined();
      expect(credentials.revoke(DEVICE)).toBe(false);
      expect(credentials.deviceOf(other)).toBe(OTHER);
      expect(revoked).toEqual([DEVICE, OTHER, DEVICE, DEVICE]);
    });
  });

  describe('a device with a key pair', () => {
    it('authenticates with a signed fresh challenge, once: a replay is refused', () => {
      const key = newKey();
      credentials.setPublicKey(DEVICE, parseDevicePublicKey(key.publicPem));
      const { challenge } = credentials.challenge(DEVICE);
      const token = proof(DEVICE, challenge, key.privateKey);
      expect(credentials.deviceOf(token)).toBe(DEVICE);
      expect(credentials.deviceOf(token)).toBeUndefined();
    });

    it('refuses a forged signature, and the challenge is used up by the attempt', () => {
      const key = newKey();
      credentials.setPublicKey(DEVICE, parseDevicePublicKey(key.publicPem));
      const { challenge } = credentials.challenge(DEVICE);
      expect(credentials.deviceOf(proof(DEVICE, challenge, newKey().privateKey))).toBeUndefined();
      expect(credentials.deviceOf(proof(DEVICE, challenge, key.privateKey))).toBeUndefined();
      const garbled = proof(DEVICE, credentials.challenge(DEVICE).challenge, key.privateKey).slice(0, -4) + 'AAAA';
      expect(credentials.deviceOf(garbled)).toBeUndefined();
    });

    it('refuses a challenge issued to another device, a made-up one, and one past its time', () => {
      const mine = newKey();
      const theirs = newKey();
      credentials.setPublicKey(DEVICE, parseDevicePublicKey(mine.publicPem));
      credentials.setPublicKey(OTHER, parseDevicePublicKey(theirs.publicPem));
      const issuedToOther = credentials.challenge(OTHER).challenge;
      expect(credentials.deviceOf(proof(DEVICE, issuedToOther, mine.privateKey))).toBeUndefined();
      expect(credentials.deviceOf(proof(DEVICE, 'A'.repeat(43), mine.privateKey))).toBeUndefined();
      const late = credentials.challenge(DEVICE).challenge;
      clock += CHALLENGE_TTL_MS + 1;
      expect(credentials.deviceOf(proof(DEVICE, late, mine.privateKey))).toBeUndefined();
    });

    it('keeps only the newest challenges of a device open', () => {
      const key = newKey();
      credentials.setPublicKey(DEVICE, parseDevicePublicKey(key.publicPem));
      const first = credentials.challenge(DEVICE).challenge;
      const rest = Array.from({ length: MAX_CHALLENGES_PER_DEVICE }, () => credentials.challenge(DEVICE).challenge);
      expect(credentials.deviceOf(proof(DEVICE, first, key.privateKey))).toBeUndefined();
      expect(credentials.deviceOf(proof(DEVICE, rest[0]!, key.privateKey))).toBe(DEVICE);
    });

    it('re-keying makes the old key fail and tells the revocation listeners; a bearer credential is replaced too', () => {
      const revoked: string[] = [];
      credentials.onRevoked((device) => revoked.push(device));
      const bearer = credentials.issue(DEVICE);
      const oldKey = newKey();
      credentials.setPublicKey(DEVICE, parseDevicePublicKey(oldKey.publicPem));
      expect(credentials.deviceOf(bearer)).toBeUndefined();
      const newer = newKey();
      credentials.setPublicKey(DEVICE, parseDevicePublicKey(newer.publicPem));
      expect(revoked).toEqual([DEVICE, DEVICE, DEVICE]);
      expect(credentials.deviceOf(proof(DEVICE, credentials.challenge(DEVICE).challenge, oldKey.privateKey))).toBe(
        undefined,
      );
      expect(credentials.deviceOf(proof(DEVICE, credentials.challenge(DEVICE).challenge, newer.privateKey))).toBe(
        DEVICE,
      );
      // a bearer credential issued afterwards replaces the key
      credentials.issue(DEVICE);
      expect(credentials.hasPublicKey(DEVICE)).toBe(false);
      expect(credentials.deviceOf(proof(DEVICE, credentials.challenge(DEVICE).challenge, newer.privateKey))).toBe(
        undefined,
      );
    });

    it('revoking removes the key', () => {
      const key = newKey();
      credentials.setPublicKey(DEVICE, parseDevicePublicKey(key.publicPem));
      expect(credentials.revoke(DEVICE)).toBe(true);
      expect(credentials.hasPublicKey(DEVICE)).toBe(false);
      expect(credentials.deviceOf(proof(DEVICE, credentials.challenge(DEVICE).challenge, key.privateKey))).toBe(
        undefined,
      );
    });
  });

  describe('a proof on the agent link (a challenge the link made)', () => {
    const linkSignature = (device: string, challenge: string, privateKey: KeyObject): Buffer =>
      sign(null, deviceProofMessage(device, challenge), privateKey);

    it('verifies the signature of the device key, for that device and challenge only, and uses up nothing', () => {
      const key = newKey();
      credentials.setPublicKey(DEVICE, parseDevicePublicKey(key.publicPem));
      const challenge = 'B'.repeat(43);
      const signature = linkSignature(DEVICE, challenge, key.privateKey);
      expect(credentials.verifiesLinkProof(DEVICE, challenge, signature)).toBe(true);
      expect(credentials.verifiesLinkProof(DEVICE, challenge, signature)).toBe(true); // the caller's challenge to retire
      expect(credentials.verifiesLinkProof(DEVICE, 'C'.repeat(43), signature)).toBe(false);
      expect(credentials.verifiesLinkProof(OTHER, challenge, signature)).toBe(false);
      expect(
        credentials.verifiesLinkProof(DEVICE, challenge, linkSignature(DEVICE, challenge, newKey().privateKey)),
      ).toBe(false);
      expect(credentials.verifiesLinkProof(DEVICE, challenge, signature.subarray(0, 63))).toBe(false);
      // the link's challenge was never handed out by :challenge, so it makes no odp1 token either
      expect(credentials.deviceOf(formatDeviceProof({ device: DEVICE, challenge, signature }))).toBeUndefined();
      credentials.revoke(DEVICE);
      expect(credentials.verifiesLinkProof(DEVICE, challenge, signature)).toBe(false);
    });

    it('verifies alike however the stored PEM is wrapped (the raw-key import and the decoder agree)', () => {
      for (let i = 0; i < 20; i++) {
        const key = newKey();
        const challenge = `challenge-number-${i}`;
        const signature = linkSignature(DEVICE, challenge, key.privateKey);
        // as stored, and with CRLF line ends as a device on another system might send it
        for (const pem of [parseDevicePublicKey(key.publicPem), key.publicPem.replace(/\n/g, '\r\n')]) {
          credentials.setPublicKey(DEVICE, pem);
          expect(credentials.verifiesLinkProof(DEVICE, challenge, signature)).toBe(true);
          expect(
            credentials.verifiesLinkProof(DEVICE, challenge, linkSignature(OTHER, challenge, key.privateKey)),
          ).toBe(false);
        }
      }
    });
  });
});
