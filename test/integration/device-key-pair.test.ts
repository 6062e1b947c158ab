/**
 * Issue 16, device identity that never crosses the wire: a device provisioned by `outpost devices provision`
 * holds an ed25519 key pair and no bearer credential, and its real droplet process connects by signing fresh
 * challenges; a bearer-credential device keeps working and moves to a key with `droplet enroll-key`; replayed and
 * forged proofs are refused (401); re-keying with `issue-credential --device-root` makes the old key fail.
 */
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AGENT_CONNECT_PATH, deviceProofMessage, formatDeviceProof, readFileDeviceKey } from '@outpost/shared';
import type { Device } from '@outpost/shared';
import { TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import { deviceProcessSuite } from './helpers/device-process-suite.js';
import { DROPLET, runCli, startProcess } from './helpers/processes.js';
import type { RunningProcess } from './helpers/processes.js';
import { waitForDevice } from './helpers/wait-for.js';

const parent = 'projects/keys/regions/eu';
const suite = deviceProcessSuite('outpost-key-device-');
const { agents, newRoot, cliEnv } = suite;
const online = (d: Device): boolean => d.status?.connectionStatus === 'CONNECTED';

/** Waits until the device is connected again by a connection newer than `since`. */
const reconnected = (name: string, since: string | undefined): Promise<Device> =>
  waitForDevice(
    suite.server.admin,
    name,
    (d) => online(d) && (d.status?.connectionStatusChangeTime ?? '') > (since ?? ''),
    20_000,
  );

function startAgent(root: string): RunningProcess {
  const agent = startProcess(DROPLET, ['--device-root', root, '--metrics-interval', '1', '--log-level', 'info']);
  agents.push(agent);
  return agent;
}

/** The status of a WebSocket upgrade to the agent path with this bearer token (101 when it is accepted). */
function upgradeStatus(token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(suite.server.url.replace(/^http/, 'ws') + AGENT_CONNECT_PATH, {
      headers: { authorization: `Bearer ${token}` },
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('upgrade', () => {
      resolve(101);
      ws.terminate();
    });
    ws.on('error', (err) => reject(err));
  });
}

async function challenge(device: string): Promise<string> {
  const res = await fetch(`${suite.server.url}/v1/${device}:challenge`, { method: 'POST' });
  expect(res.status).toBe(200);
  return ((await res.json()) as { challenge: string }).challenge;
}

/** A proof signed with the key in `{root}/config/identity` (as the agent makes it). */
async function proofFrom(root: string, device: string): Promise<string> {
  const key = (await readFileDeviceKey(join(root, 'config', 'identity')))!;
  const c = await challenge(device);
  return formatDeviceProof({ device, challenge: c, signature: await key.sign(deviceProofMessage(device, c)) });
}

describe('a device provisioned with a key pair', () => {
  it('connects as a real droplet with no bearer credential in its config dir; replays and forgeries get 401', async () => {
    const name = `${parent}/devices/keyed`;
    const root = newRoot();
    const provisioned = await runCli(['devices', 'provision', name, '--device-root', root], cliEnv());
    expect(provisioned.code, provisioned.stderr).toBe(0);
    expect(readdirSync(join(root, 'config')).sort()).toEqual(['droplet.json', 'identity']);
    expect(statSync(join(root, 'config', 'identity')).mode & 0o777).toBe(0o700);
    for (const file of readdirSync(join(root, 'config', 'identity'))) {
      expect(statSync(join(root, 'config', 'identity', file)).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync(join(root, 'config', 'droplet.json'), 'utf8')).not.toMatch(/odc_|PRIVATE/);

    startAgent(root);
    const connectedAt = (await waitForDevice(suite.server.admin, name, online)).status?.connectionStatusChangeTime;

    const proof = await proofFrom(root, name);
    expect(await upgradeStatus(proof)).toBe(101);
    expect(await upgradeStatus(proof)).toBe(401); // replayed
    // signed by another key
    const stranger = newRoot();
    cpSync(root, stranger, { recursive: true });
    const other = await runCli(
      ['devices', 'provision', `${parent}/devices/stranger`, '--device-root', stranger],
      cliEnv(),
    );
    expect(other.code, other.stderr).toBe(0);
    expect(await upgradeStatus(await proofFrom(stranger, name))).toBe(401);
    // the signature of another device's challenge, and a garbled signature
    const theirs = await proofFrom(stranger, `${parent}/devices/stranger`);
    expect(await upgradeStatus(theirs.replace(`${parent}/devices/stranger`, name))).toBe(401);
    expect(await upgradeStatus((await proofFrom(root, name)).slice(0, -6) + 'AAAAAA')).toBe(401);
    // the droplet (whose link the accepted raw connection replaced) comes back with fresh proofs
    await reconnected(name, connectedAt);
  });

  it('issue-credential --device-root re-keys: the old key fails, the link closes, the agent comes back with the new key', async () => {
    const name = `${parent}/devices/rekeyed`;
    const root = newRoot();
    expect((await runCli(['devices', 'provision', name, '--device-root', root], cliEnv())).code).toBe(0);
    const before = newRoot();
    cpSync(join(root, 'config'), join(before, 'config'), { recursive: true });
    startAgent(root);
    const connectedAt = (await waitForDevice(suite.server.admin, name, online)).status?.connectionStatusChangeTime;

    const rekeyed = await runCli(['devices', 'issue-credential', name, '--device-root', root], cliEnv());
    expect(rekeyed.code, rekeyed.stderr).toBe(0);
    expect(await upgradeStatus(await proofFrom(before, name))).toBe(401);
    expect(await upgradeStatus(await proofFrom(root, name))).toBe(101);
    // the agent's link was closed, and it is back with the new key from its identity dir
    await reconnected(name, connectedAt);
  });

  it('refuses a key that is not an ed25519 public key (400) and changes nothing', async () => {
    const name = `${parent}/devices/badkey`;
    const root = newRoot();
    expect((await runCli(['devices', 'provision', name, '--device-root', root], cliEnv())).code).toBe(0);
    const res = await fetch(`${suite.server.url}/v1/${name}:issueCredential`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: 'not a key' }),
    });
    expect(res.status).toBe(400);
    expect(await upgradeStatus(await proofFrom(root, name))).toBe(101);
  });
});

describe('a device provisioned with a bearer credential', () => {
  it('keeps working, and moves to a key pair with droplet enroll-key (its credential is revoked)', async () => {
    const name = `${parent}/devices/legacy`;
    const root = newRoot();
    expect((await runCli(['devices', 'provision', name, '--device-root', root], cliEnv())).code).toBe(0);
    // as provisioned before key pairs: a bearer credential in config/credential and no identity
    const issued = await runCli(['devices', 'issue-credential', name], cliEnv());
    expect(issued.code, issued.stderr).toBe(0);
    const credential = issued.stdout.trim();
    await rm(join(root, 'config', 'identity'), { recursive: true });
    writeFileSync(join(root, 'config', 'credential'), `${credential}\n`, { mode: 0o600 });

    const agent = startAgent(root);
    const connectedAt = (await waitForDevice(suite.server.admin, name, online)).status?.connectionStatusChangeTime;

    const enroll = startProcess(DROPLET, ['enroll-key', '--device-root', root]);
    const { code } = await enroll.exited;
    expect(code, enroll.output()).toBe(0);
    expect(existsSync(join(root, 'config', 'credential'))).toBe(false);
    expect(readdirSync(join(root, 'config', 'identity')).sort()).toEqual(['private-key.pem', 'public-key.pem']);
    expect(await upgradeStatus(credential)).toBe(401);
    // the running agent lost its link with the credential and is back with the key
    await expect.poll(() => agent.output(), { timeout: 10_000 }).toMatch(/lost the link/);
    await reconnected(name, connectedAt);
    expect(await upgradeStatus(await proofFrom(root, name))).toBe(101);

    // enrolling again has no credential to use: refused, nothing changed
    const again = startProcess(DROPLET, ['enroll-key', '--device-root', root]);
    expect((await again.exited).code).toBe(1);
    expect(again.output()).toMatch(/credential is missing/);
  });
});

/** How a raw link announcing `odk1.<device>` ended: welcomed, refused before the upgrade, or closed with a code. */
type LinkOutcome = { welcomed: string } | { httpStatus: number } | { closeCode: number };

/**
 * Opens the agent link as a device with a key (Authorization: Bearer odk1.<device>) and answers the challenge the
 * server sends on it with `answer` (a frame, or nothing); resolves with how the link ended up.
 */
function keyLink(
  device: string,
  answer: (challenge: string, ws: WebSocket) => Promise<string | Buffer | undefined>,
  keepOpen?: (ws: WebSocket) => void,
): Promise<LinkOutcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(suite.server.url.replace(/^http/, 'ws') + AGENT_CONNECT_PATH, {
      headers: { authorization: `Bearer odk1.${device}` },
    });
    let challenged = false;
    ws.on('unexpected-response', (_req, res) => {
      resolve({ httpStatus: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as { type: string; challenge?: string; deviceName?: string };
      if (!challenged) {
        challenged = true;
        expect(message.type).toBe('challenge');
        void answer(message.challenge!, ws).then((frame) => frame !== undefined && ws.send(frame), reject);
        return;
      }
      if (message.type === 'welcome') {
        resolve({ welcomed: message.deviceName! });
        if (keepOpen) keepOpen(ws);
        else ws.terminate();
      }
    });
    ws.on('close', (code) => resolve({ closeCode: code }));
    ws.on('error', (err) => reject(err));
  });
}

const proofFrame = (signature: Buffer): string =>
  JSON.stringify({ type: 'proof', signature: signature.toString('base64url') });

const signedWith =
  (root: string, device: string) =>
  async (challenge: string): Promise<string> => {
    const key = (await readFileDeviceKey(join(root, 'config', 'identity')))!;
    return proofFrame(await key.sign(deviceProofMessage(device, challenge)));
  };

describe('the challenge on the link (odk1)', () => {
  it('welcomes the signature of the challenge sent on the link; other answers close it with 4401', async () => {
    const name = `${parent}/devices/inband`;
    const root = newRoot();
    expect((await runCli(['devices', 'provision', name, '--device-root', root], cliEnv())).code).toBe(0);
    expect(await keyLink(name, signedWith(root, name))).toEqual({ welcomed: name });

    // a proof replayed from another link: the first link's challenge, signed, answered on a second one
    const key = (await readFileDeviceKey(join(root, 'config', 'identity')))!;
    const first = await new Promise<{ challenge: string; signature: Buffer }>((resolve, reject) => {
      keyLink(name, async (challenge, ws) => {
        resolve({ challenge, signature: await key.sign(deviceProofMessage(name, challenge)) });
        ws.terminate(); // it never answers
        return undefined;
      }).catch(reject);
    });
    expect(await keyLink(name, () => Promise.resolve(proofFrame(first.signature)))).toEqual({ closeCode: 4401 });
    // nor is it an odp1 token: the challenge of a link was never handed out by :challenge
    expect(await upgradeStatus(formatDeviceProof({ device: name, ...first }))).toBe(401);

    // signed by another device's key
    const stranger = newRoot();
    expect(
      (await runCli(['devices', 'provision', `${parent}/devices/inband-stranger`, '--device-root', stranger], cliEnv()))
        .code,
    ).toBe(0);
    expect(await keyLink(name, signedWith(stranger, name))).toEqual({ closeCode: 4401 });
    // a garbled signature, a message other than the proof, a binary frame, an oversized frame
    expect(await keyLink(name, () => Promise.resolve(proofFrame(Buffer.alloc(64, 7))))).toEqual({ closeCode: 4401 });
    const hello = JSON.stringify({ type: 'hello', agentVersion: '1', bootId: 'b', capabilities: [] });
    expect(await keyLink(name, () => Promise.resolve(hello))).toEqual({ closeCode: 4401 });
    expect(await keyLink(name, () => Promise.resolve(Buffer.from([1, 2, 3])))).toEqual({ closeCode: 4401 });
    expect(
      await keyLink(name, () => Promise.resolve(JSON.stringify({ type: 'proof', signature: 'A'.repeat(5000) }))),
    ).toEqual({ closeCode: 4401 });
  });

  it('refuses the upgrade (401) for a device without a key pair and for an unknown device', async () => {
    const name = `${parent}/devices/inband-credential`;
    const root = newRoot();
    expect((await runCli(['devices', 'provision', name, '--device-root', root], cliEnv())).code).toBe(0);
    expect((await runCli(['devices', 'issue-credential', name], cliEnv())).code).toBe(0); // now a bearer device
    expect(await keyLink(name, signedWith(root, name))).toEqual({ httpStatus: 401 });
    expect(await keyLink(`${parent}/devices/nobody`, signedWith(root, name))).toEqual({ httpStatus: 401 });
  });

  it('keeps nothing of the challenge on a link that proved its key (no per-link closures over its scope)', async () => {
    const name = `${parent}/devices/inband-lean`;
    const root = newRoot();
    expect((await runCli(['devices', 'provision', name, '--device-root', root], cliEnv())).code).toBe(0);
    let client: WebSocket | undefined;
    expect(await keyLink(name, signedWith(root, name), (ws) => (client = ws))).toEqual({ welcomed: name });
    try {
      // the server's side of the link: of the listeners the challenge added, none is left beside the session's own
      const link = suite.server.gateway['sessions'].get(name)!.socket;
      expect([link.listenerCount('message'), link.listenerCount('error')]).toEqual([1, 1]);
    } finally {
      client?.terminate();
    }
  });

  it('closes a link opened with the key when the key is revoked', async () => {
    const name = `${parent}/devices/inband-revoked`;
    const root = newRoot();
    expect((await runCli(['devices', 'provision', name, '--device-root', root], cliEnv())).code).toBe(0);
    let closed: Promise<number> | undefined;
    const outcome = await keyLink(name, signedWith(root, name), (ws) => {
      closed = new Promise((resolve) => ws.on('close', (code) => resolve(code)));
      // answer the 1 s heartbeats as an agent does: the CLI may take seconds to start on a loaded machine, and a
      // silent link is cut after two heartbeats (1006), which would hide the revocation's 4003
      ws.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString('utf8')) as { type: string; nonce?: string };
        if (message.type === 'ping') ws.send(JSON.stringify({ type: 'pong', nonce: message.nonce }));
      });
    });
    expect(outcome).toEqual({ welcomed: name });
    const revoked = await runCli(['devices', 'revoke-credential', name], cliEnv());
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await closed).toBe(4003);
  });
});
