/**
 * Issue 16, credentials: revoking or rotating a device credential ends what the old credential opened. A real
 * droplet process is connected and serving a download to the operator when its credential goes: at once the
 * device is Offline, the download is cut, and the agent cannot connect again with what it holds.
 */
import { randomFillSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import { RemoteOpsWorld, offline } from './remote-ops-fixture.js';
import type { Agent } from './remote-ops-fixture.js';
import { perAttempt } from './helpers/per-attempt.js';
import { waitForDevice } from './helpers/wait-for.js';

const world = new RemoteOpsWorld();
let bigFile: string;

beforeAll(async () => {
  await world.start(1);
  bigFile = join(world.folder('device-files'), 'big.bin');
  writeFileSync(bigFile, randomFillSync(Buffer.alloc(32 * 1024 * 1024)));
});
afterAll(async () => {
  await world.stop();
});

/** Starts downloading the big file from the device and reads its first bytes only: the transfer stays open. */
async function openDownload(device: string): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const res = await fetch(`${world.server.url}/v1/${device}:download?path=${encodeURIComponent(bigFile)}`, {
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const first = await reader.read();
  expect(first.done).toBe(false);
  return reader;
}

/** Reads on until the download ends; what ended it: 'complete' or 'cut'. */
async function endOf(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<'complete' | 'cut'> {
  try {
    for (;;) if ((await reader.read()).done) return 'complete';
  } catch {
    return 'cut';
  }
}

async function expectLinkEndsWithin(agent: Agent, device: string, end: () => Promise<unknown>): Promise<void> {
  const download = await openDownload(device);
  const started = Date.now();
  await end();
  // the download was stalled by flow control: it cannot have completed, the revocation cut it
  const [, ending] = await Promise.all([waitForDevice(world.server.admin, device, offline), endOf(download)]);
  expect(ending).toBe('cut');
  // Unrevoked, the link stays up for good (the agent keeps answering heartbeats), so a bound well above a loaded
  // machine's delays still tells "ended by the revocation" from "not ended".
  expect(Date.now() - started).toBeLessThan(10_000);
  // what the agent holds no longer opens a link
  await expect.poll(() => agent.output(), { timeout: 15_000 }).toMatch(/refused the device credential/);
  expect(world.server.gateway.isOnline(device)).toBe(false);
}

describe('a device credential that stops working', () => {
  it('revoked: the link and its download end at once, and the agent is refused', async (context) => {
    const device = perAttempt(context, 'projects/creds/regions/eu/devices/revoked-1');
    const agent = await world.onlineDevice(device);
    await expectLinkEndsWithin(agent, device, () =>
      world.server.admin.request('POST', `/v1/${device}:revokeCredential`, { body: {} }),
    );
  }, 120_000);

  it('rotated: the link opened with the old credential ends the same way', async (context) => {
    const device = perAttempt(context, 'projects/creds/regions/eu/devices/rotated-1');
    const agent = await world.onlineDevice(device);
    await expectLinkEndsWithin(agent, device, () =>
      world.server.admin.request('POST', `/v1/${device}:issueCredential`, { body: {} }),
    );
  }, 120_000);
});
