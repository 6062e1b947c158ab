import { createServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TLS_WAVE_HEAP_GROWING_PERCENT, type ServerConfig } from '../../src/server/config.js';
import { runServer, type RunningServer, type ServerProcess } from '../../src/server/run.js';
import { openConnections } from '../helpers/tcp-burst.js';

/** A real HTTP server standing in for the composition root; `reload` makes it one with a certificate. */
async function startHttp(config: ServerConfig, reload?: () => boolean): Promise<RunningServer> {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${config.host}:${port}`,
    ...(reload === undefined ? {} : { reloadCertificate: reload }),
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

function fakeProcess(argv: string[]) {
  const logs: { level: number; msg: string }[] = [];
  let shutdown: ((signal: string) => void) | undefined;
  let reload: (() => void) | undefined;
  let resolveExit: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));
  const proc: ServerProcess = {
    argv,
    env: {},
    stdout: () => {},
    stderr: () => {},
    logDestination: { write: (line: string) => logs.push(JSON.parse(line) as { level: number; msg: string }) },
    onShutdownSignal: (handler) => (shutdown = handler),
    onReloadSignal: (handler) => (reload = handler),
    exit: (code) => resolveExit(code),
  };
  const tuned: number[] = [];
  proc.tuneHeap = (percent) => tuned.push(percent);
  return { proc, logs, tuned, exited, stop: () => shutdown?.('SIGTERM'), hangUp: () => reload?.() };
}

const WARN = 40;
const INFO = 30;

describe('runServer and transport security', () => {
  it('says it serves plain HTTP on loopback, and warns on any other address', async () => {
    const loopback = fakeProcess(['--port', '0', '--host', '127.0.0.1']);
    await runServer((config) => startHttp(config), loopback.proc);
    expect(loopback.logs).toContainEqual(
      expect.objectContaining({ level: INFO, msg: expect.stringMatching(/^serving plain HTTP on loopback/) }),
    );
    loopback.stop();
    expect(await loopback.exited).toBe(0);

    const everywhere = fakeProcess(['--port', '0', '--host', '0.0.0.0']);
    await runServer((config) => startHttp(config), everywhere.proc);
    expect(everywhere.logs).toContainEqual(
      expect.objectContaining({
        level: WARN,
        msg: expect.stringMatching(/^serving plain HTTP on a non-loopback address.*--tls-cert/),
      }),
    );
    everywhere.stop();
    expect(await everywhere.exited).toBe(0);
  });

  it('reloads the certificate on SIGHUP and says nothing about plain HTTP when it has one', async () => {
    let reloads = 0;
    const p = fakeProcess(['--port', '0', '--host', '0.0.0.0']);
    await runServer((config) => startHttp(config, () => (reloads++, true)), p.proc);
    p.hangUp();
    p.hangUp();
    expect(reloads).toBe(2);
    expect(p.logs.map((l) => l.msg).join('\n')).not.toContain('plain HTTP');
    p.stop();
    expect(await p.exited).toBe(0);
  });

  it('lets the heap grow further while TLS connections pour in, and not with --tls-wave-heap-growing-percent 0', async () => {
    const tcp = await listeningTcpServer();
    const p = fakeProcess(['--port', '0', '--heap-growing-percent', '60']);
    await runServer(async (config) => ({ ...(await startHttp(config)), tlsConnections: tcp }), p.proc);
    expect(p.tuned).toEqual([60]);
    const sockets = await openConnections(tcp, 100); // in at most ten ticks of a second: one has 10 or more
    while (p.tuned.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(p.tuned).toEqual([60, DEFAULT_TLS_WAVE_HEAP_GROWING_PERCENT]);
    expect(p.logs).toContainEqual(
      expect.objectContaining({ heapGrowingPercent: DEFAULT_TLS_WAVE_HEAP_GROWING_PERCENT, msg: expect.any(String) }),
    );
    p.stop(); // the wave is still on: stopping sets the configured percent back
    expect(await p.exited).toBe(0);
    expect(p.tuned).toEqual([60, DEFAULT_TLS_WAVE_HEAP_GROWING_PERCENT, 60]);
    expect(tcp.listenerCount('connection')).toBe(0);

    const off = fakeProcess(['--port', '0', '--tls-wave-heap-growing-percent', '0']);
    await runServer(async (config) => ({ ...(await startHttp(config)), tlsConnections: tcp }), off.proc);
    expect(tcp.listenerCount('connection')).toBe(0); // nothing follows the connections
    off.stop();
    expect(await off.exited).toBe(0);
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => tcp.close(resolve));
  }, 60_000);
});

/** A real TCP server standing in for the HTTPS one: it emits 'connection' for each accepted socket. */
async function listeningTcpServer(): Promise<Server> {
  const tcp = createTcpServer();
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  return tcp;
}
