/**
 * A control plane whose event loop lags refuses new device links with 503 and Retry-After instead of queueing
 * them, and the agent comes back after the wait it was given. The lag is real: the server process is stopped
 * (SIGSTOP) while links wait in its kernel queues, so on resuming it finds its loop far behind.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLink } from '../../agent/src/link/agent-link.js';
import { capturedLogger } from '../../agent/test/helpers/captured-logger.js';
import { createDevice } from '../../control-plane/test/transfer/scripted-agent.js';
import { startReplica } from './helpers/cluster-replicas.js';
import type { Replica } from './helpers/cluster-replicas.js';
import { perAttempt } from './helpers/per-attempt.js';
import { waitForDevice } from './helpers/wait-for.js';

const DEVICE = 'projects/shedding/regions/r1/devices/shed-1';
const SHED_AT_LAG_MS = 300;
const WAIT_MS = 120_000;

let work: string;
let server: Replica;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'outpost-shedding-'));
  server = await startReplica(`sqlite:${join(work, 'outpost.db')}`, ['--shed-upgrades-lag-ms', String(SHED_AT_LAG_MS)]);
}, WAIT_MS);

afterAll(async () => {
  await server?.stop('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** The connections to `port` the kernel holds for the server with request bytes it has not read yet. */
function unreadConnections(port: number): number {
  const lines = execFileSync('ss', ['-Htn', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' });
  return lines.split('\n').filter((line) => Number(line.trim().split(/\s+/)[0]) > 0).length;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + WAIT_MS; !condition(); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

/** Sends an agent upgrade by hand; resolves with the head and body of the answer. */
function rawUpgrade(port: number, credential: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(
        'GET /v1/agent:connect HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
          `Authorization: Bearer ${credential}\r\n\r\n`,
      ),
    );
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('a control plane whose event loop lags', () => {
  it(
    'refuses new links with 503 and Retry-After, and the agent connects after the wait',
    async (context) => {
      const device = perAttempt(context, DEVICE);
      const credential = await createDevice(server.admin, device);
      const port = Number(new URL(server.url).port);
      const log = capturedLogger();
      const link = new AgentLink({
        server: server.url,
        credential: async () => credential,
        hello: () => ({ agentVersion: '9.9.9', bootId: 'boot-1' }),
        logger: log.logger,
        random: () => 0.5,
        // the agent must not give up on its handshake while the server is stopped
        handshakeTimeoutMs: WAIT_MS,
      });
      server.process.child.kill('SIGSTOP');
      const stoppedAt = Date.now();
      let answer: Promise<string>;
      try {
        answer = rawUpgrade(port, credential);
        link.start();
        await until(() => unreadConnections(port) >= 2, 'both upgrades to wait in the kernel');
        // the stop must outlast the threshold: that is the lag the server finds when it resumes
        await new Promise((r) => setTimeout(r, Math.max(0, 3 * SHED_AT_LAG_MS - (Date.now() - stoppedAt))));
      } finally {
        server.process.child.kill('SIGCONT');
      }
      try {
        const refused = await answer;
        expect(refused).toMatch(/^HTTP\/1\.1 503 /);
        const retryAfter = Number(/\r\nRetry-After: (\d+)\r\n/i.exec(refused)?.[1]);
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(refused).toContain('"status":"UNAVAILABLE"');

        await waitForDevice(server.admin, device, (d) => d.status?.connectionStatus === 'CONNECTED', WAIT_MS);
        // the server counts the device online at its hello; the link counts itself connected at the welcome
        await until(() => link.connected, 'the link to read its welcome');
        const retries = log.lines.filter((line) => line.httpStatus === 503);
        expect(retries).toHaveLength(1);
        // Retry-After of at least 1 s, jittered by the fixed random (0.5) to 1.5 times that
        expect(retries[0]!.retryInMs).toBeGreaterThanOrEqual(1500);
        expect(server.process.output()).toContain('refusing new agent links with 503 and Retry-After');
      } finally {
        await link.stop();
      }
    },
    3 * WAIT_MS,
  );
});
