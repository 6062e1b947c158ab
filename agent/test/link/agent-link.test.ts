import { afterEach, describe, expect, it } from 'vitest';
import { AgentLink, agentConnectUrl } from '../../src/link/agent-link.js';
import type { AgentLinkOptions } from '../../src/link/agent-link.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { eventually } from '../helpers/eventually.js';
import { TestGateway } from '../helpers/test-gateway.js';
import type { TestGatewayOptions } from '../helpers/test-gateway.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(
  gatewayOptions: TestGatewayOptions = {},
  linkOptions: Partial<AgentLinkOptions> = {},
): Promise<{ gateway: TestGateway; link: AgentLink; log: ReturnType<typeof capturedLogger> }> {
  const gateway = await TestGateway.start(gatewayOptions);
  const log = capturedLogger();
  const link = new AgentLink({
    server: gateway.url,
    credential: async () => 'secret-1',
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

const retryDelays = (log: ReturnType<typeof capturedLogger>): unknown[] =>
  log.lines.filter((l) => l.retryInMs !== undefined).map((l) => l.retryInMs);

describe('agentConnectUrl', () => {
  it('maps the server URL onto the agent endpoint', () => {
    expect(agentConnectUrl('http://h:8080')).toBe('ws://h:8080/v1/agent:connect');
    expect(agentConnectUrl('https://h/base/')).toBe('wss://h/base/v1/agent:connect');
  });
});

describe('AgentLink', () => {
  it('connects with the credential, says hello, and is connected after the welcome', async () => {
    const { gateway, link } = await setup();
    link.setCommandHandler('reboot', () => 'ok');
    const welcomed: string[] = [];
    link.onConnected((welcome) => welcomed.push(welcome.deviceName));

    const connection = await gateway.connection(0);
    expect(connection.authorization).toBe('Bearer secret-1');
    const hello = await connection.waitFor('hello');
    expect(hello).toMatchObject({ agentVersion: '9.9.9', bootId: 'boot-1' });
    expect(hello.capabilities).toEqual(expect.arrayContaining(['status', 'metrics', 'spec']));
    expect(link.connected).toBe(false);
    expect(link.send({ type: 'pong', nonce: 'early' })).toBe(false);

    connection.welcome();
    await eventually(() => expect(link.connected).toBe(true));
    expect(welcomed).toEqual(['projects/p/regions/r/devices/d1']);
    await connection.waitFor('getSpec');
    expect(link.send({ type: 'pong', nonce: 'late' })).toBe(true);
    await connection.waitFor('pong', (m) => m.nonce === 'late');
  });

  it('answers ping with pong', async () => {
    const { gateway } = await setup();
    const connection = await gateway.connection(0);
    connection.welcome();
    connection.send({ type: 'ping', nonce: 'n-42' });
    expect(await connection.waitFor('pong')).toEqual({ type: 'pong', nonce: 'n-42' });
  });

  it('answers malformed messages with an error and stays up', async () => {
    const { gateway, link, log } = await setup();
    const connection = await gateway.connection(0);
    connection.welcome();
    await eventually(() => expect(link.connected).toBe(true));

    connection.send('this is not json');
    connection.send({ type: 'teleport', id: 'm1' });
    connection.send({ type: 'command', id: 'm2' });
    const notJson = await connection.waitFor('error', (m) => String(m.message).includes('not JSON'));
    expect(notJson.status).toBe('INVALID_ARGUMENT');
    expect(await connection.waitFor('error', (m) => m.refId === 'm1')).toMatchObject({
      message: expect.stringContaining('unknown server message type "teleport"'),
    });
    await connection.waitFor('error', (m) => m.refId === 'm2');
    expect(log.messages()).toContain('refused a malformed server message');

    connection.send({ type: 'ping', nonce: 'still-here' });
    await connection.waitFor('pong', (m) => m.nonce === 'still-here');
    expect(link.connected).toBe(true);
    expect(gateway.connections).toHaveLength(1);
  });

  it('hands specs to every consumer, a failing one not stopping the others', async () => {
    const { gateway, link, log } = await setup();
    const seen: number[] = [];
    link.addSpecConsumer(() => {
      throw new Error('consumer broke');
    });
    link.addSpecConsumer((device) => {
      seen.push(device.metadata.generation);
    });
    const connection = await gateway.connection(0);
    connection.welcome();
    connection.send({
      type: 'spec',
      device: { name: 'projects/p/regions/r/devices/d1', spec: { osVersion: '1.2.0' }, metadata: { generation: 7 } },
    });
    await eventually(() => expect(seen).toEqual([7]));
    await eventually(() => expect(log.messages()).toContain('a spec consumer failed'));
  });

  it('runs commands and answers each with a result', async () => {
    const { gateway, link } = await setup();
    link.setCommandHandler('echo', async (args) => ({ echoed: args }));
    link.setCommandHandler('explode', () => {
      throw new Error('boom');
    });
    const connection = await gateway.connection(0);
    connection.welcome();
    connection.send({ type: 'command', id: 'c1', command: 'echo', args: { x: 1 } });
    connection.send({ type: 'command', id: 'c2', command: 'explode' });
    connection.send({ type: 'command', id: 'c3', command: 'teleport' });
    expect(await connection.waitFor('result', (m) => m.id === 'c1')).toEqual({
      type: 'result',
      id: 'c1',
      ok: true,
      data: { echoed: { x: 1 } },
    });
    expect(await connection.waitFor('result', (m) => m.id === 'c2')).toMatchObject({
      ok: false,
      error: { status: 'INTERNAL', message: 'boom' },
    });
    expect(await connection.waitFor('result', (m) => m.id === 'c3')).toMatchObject({
      ok: false,
      error: { status: 'UNIMPLEMENTED' },
    });
  });

  it('reconnects after the server drops the link, with growing full-jitter delays', async () => {
    const { gateway, link, log } = await setup({}, { random: () => 0.999, stableAfterMs: 60_000 });
    const disconnects: number[] = [];
    link.onDisconnected(() => disconnects.push(Date.now()));

    for (let i = 0; i < 4; i++) {
      const connection = await gateway.connection(i);
      connection.welcome();
      await eventually(() => expect(link.connected).toBe(true));
      connection.socket.terminate();
    }
    await gateway.connection(4);
    expect(disconnects).toHaveLength(4);
    // random() just below 1: each delay is just below min(cap, base * 2^attempt)
    expect(retryDelays(log)).toEqual([19, 39, 79, 159]);
  });

  it('resets the backoff after a stable connection', async () => {
    // long enough that a loaded machine does not make the short-lived links below look stable
    const stableAfterMs = 3_000;
    const { gateway, link, log } = await setup({}, { random: () => 0.999, stableAfterMs });
    const first = await gateway.connection(0);
    first.socket.terminate();
    const second = await gateway.connection(1);
    second.socket.terminate();
    const third = await gateway.connection(2);
    third.welcome();
    await eventually(() => expect(link.connected).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, stableAfterMs + 100));
    third.socket.terminate();
    await gateway.connection(3);
    expect(retryDelays(log)).toEqual([19, 39, 19]);
  });

  it('treats a silent server as a dead link and reconnects', async () => {
    const { gateway, log } = await setup();
    const connection = await gateway.connection(0);
    connection.welcome(0.05); // silent for 2.5 heartbeats = 125 ms
    await connection.closed;
    await gateway.connection(1);
    expect(log.messages()).toContain('the server went silent; dropping the link');
  });

  it('keeps answering heartbeats on a link that is not silent', async () => {
    const { gateway, link } = await setup();
    const connection = await gateway.connection(0);
    // dead after 5 s of silence (a loaded machine may hold a ping back for a second); the pings span more than that
    connection.welcome(2);
    for (let i = 0; i < 10; i++) {
      connection.send({ type: 'ping', nonce: `p${i}` });
      await connection.waitFor('pong', (m) => m.nonce === `p${i}`);
      await new Promise((resolve) => setTimeout(resolve, 600));
    }
    expect(link.connected).toBe(true);
    expect(gateway.connections).toHaveLength(1);
  });

  it('logs a refused credential clearly, retries slowly, and picks up a rotated credential', async () => {
    let credential = 'old-credential';
    const { gateway, link, log } = await setup(
      { refuseUpgrade: (request) => (request.headers.authorization === 'Bearer new-credential' ? undefined : 401) },
      { credential: async () => credential, unauthorizedRetryMs: 100, random: () => 0.5 },
    );
    await eventually(() => expect(gateway.refusedUpgrades).toBeGreaterThanOrEqual(2));
    const refusals = log.lines.filter((l) => l.msg?.includes('refused the device credential'));
    expect(refusals[0]).toMatchObject({ level: 50, httpStatus: 401, retryInMs: 75 });
    expect(link.connected).toBe(false);

    credential = 'new-credential';
    const connection = await gateway.connection(0);
    expect(connection.authorization).toBe('Bearer new-credential');
    connection.welcome();
    await eventually(() => expect(link.connected).toBe(true));
  });

  it('keeps retrying while the server is down, then connects', async () => {
    const gateway = await TestGateway.start();
    const url = gateway.url;
    await gateway.close();
    const log = capturedLogger();
    const link = new AgentLink({
      server: url,
      credential: async () => 'c',
      hello: () => ({ agentVersion: '1', bootId: 'b' }),
      logger: log.logger,
      backoff: { baseMs: 10, capMs: 50 },
    });
    cleanups.push(() => link.stop());
    link.start();
    await eventually(() =>
      expect(log.messages().filter((m) => m.startsWith('cannot connect')).length).toBeGreaterThanOrEqual(3),
    );
    expect(link.connected).toBe(false);
  });

  it('stops cleanly and does not reconnect', async () => {
    const { gateway, link } = await setup();
    const connection = await gateway.connection(0);
    connection.welcome();
    await eventually(() => expect(link.connected).toBe(true));
    await link.stop();
    await connection.closed;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gateway.connections).toHaveLength(1);
    expect(link.connected).toBe(false);
  });
});
