import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { DEFAULT_HEAP_GROWING_PERCENT } from '../../src/server/config.js';
import type { ServerConfig } from '../../src/server/config.js';
import { runServer, type RunningServer, type ServerProcess } from '../../src/server/run.js';

/** A real HTTP server standing in for the composition root. */
async function startHttp(config: ServerConfig): Promise<RunningServer> {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${config.host}:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

function fakeProcess(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const logs: Record<string, unknown>[] = [];
  let signalHandler: ((signal: string) => void) | undefined;
  let resolveExit: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));
  const proc: ServerProcess = {
    argv,
    env,
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    logDestination: { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) },
    onShutdownSignal: (handler) => (signalHandler = handler),
    exit: (code) => resolveExit(code),
  };
  return { proc, out, err, logs, exited, signal: (s: string) => signalHandler?.(s) };
}

describe('runServer', () => {
  it('starts, logs the url, and closes on the first signal with exit 0', async () => {
    let running: RunningServer | undefined;
    const p = fakeProcess(['--port', '0']);
    await runServer(async (config, logger) => {
      logger.info({ secret: 'never-logged' }, 'starting');
      running = await startHttp(config);
      return running;
    }, p.proc);
    const url = String(p.logs.find((l) => l['msg'] === 'listening')?.['url']);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(url)).text()).toBe('ok');
    expect(JSON.stringify(p.logs)).not.toContain('never-logged');

    p.signal('SIGTERM');
    expect(await p.exited).toBe(0);
    await expect(fetch(url)).rejects.toThrow();
    expect(p.logs.map((l) => l['msg'])).toEqual([
      'starting',
      'listening',
      'serving plain HTTP on loopback (development); give --tls-cert and --tls-key for HTTPS',
      'shutting down',
      'stopped',
    ]);
  });

  it('exits 1 at once on a second signal', async () => {
    const p = fakeProcess(['--port', '0']);
    let finishClose: () => void = () => {};
    const closing = new Promise<void>((resolve) => (finishClose = resolve));
    await runServer(async () => ({ url: 'http://x', close: () => closing }), p.proc);
    p.signal('SIGINT');
    p.signal('SIGINT');
    expect(await p.exited).toBe(1);
    finishClose();
  });

  it('exits 2 with a clear message on bad configuration', async () => {
    const p = fakeProcess([], { OUTPOST_PORT: 'eighty' });
    await runServer(() => Promise.reject(new Error('must not start')), p.proc);
    expect(await p.exited).toBe(2);
    expect(p.err.join('')).toContain('outpost-server: invalid OUTPOST_PORT "eighty"');
  });

  it('exits 1 when the server cannot start', async () => {
    const p = fakeProcess([]);
    await runServer(() => Promise.reject(new Error('address in use')), p.proc);
    expect(await p.exited).toBe(1);
    expect(p.logs[0]).toMatchObject({ msg: 'cannot start', err: { message: 'address in use' } });
  });

  it('tunes the heap before starting: --heap-growing-percent, 50 by default; not at all on bad configuration', async () => {
    const tunedWith = async (argv: string[]): Promise<number[]> => {
      const tuned: number[] = [];
      const p = fakeProcess(argv);
      let startedAfterTuning: boolean | undefined;
      await runServer(
        async (config) => {
          startedAfterTuning = tuned.length === 1;
          return startHttp(config);
        },
        { ...p.proc, tuneHeap: (percent) => tuned.push(percent) },
      );
      if (startedAfterTuning !== undefined) {
        expect(startedAfterTuning).toBe(true);
        p.signal('SIGTERM');
      }
      await p.exited;
      return tuned;
    };
    expect(await tunedWith(['--port', '0'])).toEqual([DEFAULT_HEAP_GROWING_PERCENT]);
    expect(DEFAULT_HEAP_GROWING_PERCENT).toBe(50);
    expect(await tunedWith(['--port', '0', '--heap-growing-percent', '0'])).toEqual([0]);
    expect(await tunedWith(['--heap-growing-percent', 'lots'])).toEqual([]);
  });

  it('prints the usage for --help', async () => {
    const p = fakeProcess(['--help']);
    await runServer(() => Promise.reject(new Error('must not start')), p.proc);
    expect(await p.exited).toBe(0);
    expect(p.out.join('')).toContain('OUTPOST_HEARTBEAT_SECONDS');
  });

  it('prints a new admin key only once listening: a start that fails on a taken port creates none', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'outpost-run-'));
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((taken.address() as AddressInfo).port);
      const failed = fakeProcess(['--port', port, '--data-dir', dataDir, '--log-level', 'silent']);
      await runServer(startServer, failed.proc);
      expect(await failed.exited).toBe(1);
      expect(failed.out.join('')).toBe('');

      const next = fakeProcess(['--port', '0', '--data-dir', dataDir, '--log-level', 'silent']);
      await runServer(startServer, next.proc);
      expect(next.out.join('')).toMatch(/^Admin API key \(shown once\): opk_admin_\S+\n$/);
      next.signal('SIGTERM');
      expect(await next.exited).toBe(0);
    } finally {
      taken.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
