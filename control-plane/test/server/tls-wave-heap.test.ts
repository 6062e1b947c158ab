import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListener } from '../../src/server/tls-listener.js';
import { TlsWaveHeapTuner, tuneHeapForTlsWaves } from '../../src/server/tls-wave-heap.js';
import { createTestCa, issueServerCertificate } from '../../../test/integration/helpers/test-certificates.js';
import { openConnections } from '../helpers/tcp-burst.js';

function tuner(): { tuner: TlsWaveHeapTuner; set: number[]; waves: boolean[] } {
  const set: number[] = [];
  const waves: boolean[] = [];
  const tuned = new TlsWaveHeapTuner({
    basePercent: 50,
    wavePercent: 200,
    connectionsPerTick: 20,
    calmTicks: 3,
    setGrowingPercent: (percent) => set.push(percent),
    onWave: (inWave) => waves.push(inWave),
  });
  return { tuner: tuned, set, waves };
}

function connections(t: TlsWaveHeapTuner, n: number): void {
  for (let i = 0; i < n; i++) t.connected();
}

describe('TlsWaveHeapTuner', () => {
  it('leaves the heap alone below the rate of a wave', () => {
    const { tuner: t, set } = tuner();
    for (let tick = 0; tick < 20; tick++) {
      connections(t, 19);
      t.tick();
    }
    expect(set).toEqual([]);
    expect(t.inWave).toBe(false);
  });

  it('lets the heap grow further from the first busy tick, once, and back after calm ticks in a row', () => {
    const { tuner: t, set, waves } = tuner();
    connections(t, 20);
    t.tick();
    expect(set).toEqual([200]);
    for (let tick = 0; tick < 5; tick++) {
      connections(t, 500);
      t.tick();
    }
    expect(set).toEqual([200]); // set once per wave, not on every tick
    t.tick();
    t.tick();
    connections(t, 25); // a busy tick before the third calm one: the wave goes on
    t.tick();
    t.tick();
    t.tick();
    expect(set).toEqual([200]);
    expect(t.inWave).toBe(true);
    t.tick();
    expect(set).toEqual([200, 50]);
    expect(waves).toEqual([true, false]);
    expect(t.inWave).toBe(false);
    t.tick();
    expect(set).toEqual([200, 50]);
  });

  it('counts per tick: connections of earlier ticks do not add up', () => {
    const { tuner: t, set } = tuner();
    connections(t, 15);
    t.tick();
    connections(t, 15);
    t.tick();
    expect(set).toEqual([]);
  });
});

describe('tuneHeapForTlsWaves on a real HTTPS listener', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-tls-wave-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sees a burst of connections as a wave, ends it when they stop, and the stop sets the base back', async () => {
    const certificate = issueServerCertificate(createTestCa(dir), dir, 'server');
    const listener = createListener(certificate, {}, (_req, res) => res.end('ok'), pino({ level: 'silent' }));
    await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', resolve));
    const set: number[] = [];
    const waitFor = async (expected: number[]): Promise<void> => {
      while (JSON.stringify(set) !== JSON.stringify(expected)) await new Promise((r) => setTimeout(r, 20));
    };
    const tlsConnections = listener.tlsConnections;
    if (tlsConnections === undefined) throw new Error('an HTTPS listener gives its connections');
    const stop = tuneHeapForTlsWaves(
      tlsConnections,
      { basePercent: 50, wavePercent: 300, setGrowingPercent: (percent) => set.push(percent) },
      // however the ticks fall, some tick of 100 ms sees at least 5 of 200 connections opened at once
      { connectionsPerTick: 5, calmTicks: 3, tickMs: 100 },
    );
    try {
      const burst = await openConnections(listener.server, 200);
      await waitFor([300]);
      for (const socket of burst) socket.destroy();
      await waitFor([300, 50]);

      const second = await openConnections(listener.server, 200);
      await waitFor([300, 50, 300]);
      stop();
      expect(set).toEqual([300, 50, 300, 50]);
      for (const socket of second) socket.destroy();
    } finally {
      stop();
      listener.close();
      listener.server.closeAllConnections();
      await new Promise((resolve) => listener.server.close(resolve));
    }
  }, 60_000);

  it('a plain HTTP listener has no TLS connections to follow', () => {
    const listener = createListener(undefined, {}, (_req, res) => res.end('ok'), pino({ level: 'silent' }));
    expect(listener.tlsConnections).toBeUndefined();
    listener.close();
  });
});
