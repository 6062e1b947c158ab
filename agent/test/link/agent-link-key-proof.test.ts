import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { LINK_PROOF_REFUSED_CLOSE_CODE, deviceProofMessage } from '@outpost/shared';
import type { DeviceKey } from '@outpost/shared';
import { AgentLink } from '../../src/link/agent-link.js';
import type { AgentLinkOptions } from '../../src/link/agent-link.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { eventually } from '../helpers/eventually.js';
import { TestGateway } from '../helpers/test-gateway.js';

const DEVICE = 'projects/p/regions/r/devices/d1';
const CHALLENGE = 'c'.repeat(43);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function ed25519Key(): DeviceKey & { publicPem: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const publicPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return {
    publicPem,
    publicKey: () => Promise.resolve(publicPem),
    sign: (message) => Promise.resolve(sign(null, message, privateKey)),
  };
}

async function setup(key: DeviceKey, linkOptions: Partial<AgentLinkOptions> = {}) {
  const gateway = await TestGateway.start();
  const log = capturedLogger();
  const link = new AgentLink({
    server: gateway.url,
    credential: () => Promise.resolve({ deviceName: DEVICE, key }),
    hello: () => ({ agentVersion: '9.9.9', bootId: 'boot-1' }),
    logger: log.logger,
    backoff: { baseMs: 20, capMs: 200 },
    ...linkOptions,
  });
  cleanups.push(() => gateway.close());
  cleanups.push(() => link.stop());
  link.start();
  return { gateway, link, log };
}

describe('AgentLink with a device key', () => {
  it('announces the device only, signs the challenge sent on the link, and says hello right behind the proof', async () => {
    const key = ed25519Key();
    const { gateway, link } = await setup(key);
    const connection = await gateway.connection(0);
    expect(connection.authorization).toBe(`Bearer odk1.${DEVICE}`);
    connection.send({ type: 'challenge', challenge: CHALLENGE });

    await connection.waitFor('hello');
    // nothing before the challenge, then the proof first of all
    expect(connection.received.map((m) => m.type)).toEqual(['proof', 'hello']);
    const signature = Buffer.from(connection.received[0]!['signature'] as string, 'base64url');
    expect(verify(null, deviceProofMessage(DEVICE, CHALLENGE), key.publicPem, signature)).toBe(true);

    connection.welcome();
    await eventually(() => expect(link.connected).toBe(true));
  });

  it('drops a link whose first message is not a challenge, without signing anything', async () => {
    const signed: Uint8Array[] = [];
    const key = ed25519Key();
    const { gateway, log } = await setup({ ...key, sign: (m) => (signed.push(m), key.sign(m)) });
    const connection = await gateway.connection(0);
    connection.send({ type: 'welcome', deviceName: DEVICE, heartbeatSeconds: 30, serverTime: '2026-01-01T00:00:00Z' });
    await connection.closed;
    expect(signed).toEqual([]);
    expect(connection.received).toEqual([]);
    expect(log.lines.some((l) => l.msg?.includes('not a challenge'))).toBe(true);
  });

  it('retries slowly when the server refuses the proof (close code 4401), as after a 401', async () => {
    const { gateway, log } = await setup(ed25519Key(), { unauthorizedRetryMs: 100, random: () => 0.5 });
    const connection = await gateway.connection(0);
    connection.send({ type: 'challenge', challenge: CHALLENGE });
    await connection.waitFor('proof');
    connection.socket.close(LINK_PROOF_REFUSED_CLOSE_CODE, 'the challenge is not signed by the device key');
    await eventually(() =>
      expect(log.lines.find((l) => l.msg?.includes('refused the device credential'))).toMatchObject({
        level: 50,
        reason: 'the challenge is not signed by the device key',
        retryInMs: 75,
      }),
    );
    await gateway.connection(1); // and it does come back
  });
});
