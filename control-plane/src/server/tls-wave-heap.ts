/**
 * Heap growth while a wave of TLS connections comes in (a fleet reconnecting after a restart or an outage).
 *
 * Every TLS socket tells V8 it holds about 49 KB outside the JavaScript heap (node's TLSWrap), and V8 counts what
 * was announced since the last full collection against the heap's limit. While thousands of TLS links come in,
 * that starts a full collection every few hundred links, each marking a heap that grows with the fleet, and frees
 * none of it: the links' memory stays in use. Letting the heap grow further past what was live while the wave
 * lasts spaces those collections out; the configured growth comes back once the wave is over, so the memory of
 * everything else (a rollout) stays as configured.
 */
export interface TlsWaveHeapOptions {
  /** the configured --heap-growing-percent (0: V8's own), set again when a wave ends */
  basePercent: number;
  /** the growing percent while a wave lasts */
  wavePercent: number;
  /** new TLS connections in one tick (a second) that start a wave or keep it going */
  connectionsPerTick: number;
  /** ticks in a row with fewer connections that end a wave */
  calmTicks: number;
  /** V8's --heap-growing-percent, set at run time */
  setGrowingPercent: (percent: number) => void;
  /** told when a wave starts (true) and ends (false) */
  onWave?: (inWave: boolean, percent: number) => void;
}

export interface TlsWaveDetection {
  connectionsPerTick: number;
  calmTicks: number;
  tickMs: number;
}

/**
 * A wave: 10 new TLS connections a second or more; over after 10 s with fewer. What each link costs the collector
 * does not depend on how fast they come, so the rate only tells a wave from the trickle of a fleet at rest.
 */
export const TLS_WAVE_DETECTION: Readonly<TlsWaveDetection> = { connectionsPerTick: 10, calmTicks: 10, tickMs: 1_000 };

/** The decision alone: counts connections, and is ticked once per period by its adapter. */
export class TlsWaveHeapTuner {
  private connections = 0;
  private calmInARow = 0;
  private waving = false;

  constructor(private readonly options: TlsWaveHeapOptions) {}

  get inWave(): boolean {
    return this.waving;
  }

  connected(): void {
    this.connections++;
  }

  tick(): void {
    const busy = this.connections >= this.options.connectionsPerTick;
    this.connections = 0;
    if (busy) {
      this.calmInARow = 0;
      if (!this.waving) this.enter(true, this.options.wavePercent);
      return;
    }
    if (this.waving && ++this.calmInARow >= this.options.calmTicks) this.enter(false, this.options.basePercent);
  }

  private enter(inWave: boolean, percent: number): void {
    this.waving = inWave;
    this.calmInARow = 0;
    this.options.setGrowingPercent(percent);
    this.options.onWave?.(inWave, percent);
  }
}

/** Something that emits 'connection' for each new TCP connection (the HTTPS server). */
export interface ConnectionSource {
  on(event: 'connection', listener: () => void): unknown;
  off(event: 'connection', listener: () => void): unknown;
}

/**
 * Counts `server`'s connections for a tuner ticked every `detection.tickMs`; returns the stop function, which
 * also sets the base percent back if a wave was on.
 */
export function tuneHeapForTlsWaves(
  server: ConnectionSource,
  options: Omit<TlsWaveHeapOptions, 'connectionsPerTick' | 'calmTicks'>,
  detection: Readonly<TlsWaveDetection> = TLS_WAVE_DETECTION,
): () => void {
  const tuner = new TlsWaveHeapTuner({ ...options, ...detection });
  const connected = (): void => tuner.connected();
  server.on('connection', connected);
  const ticker = setInterval(() => tuner.tick(), detection.tickMs);
  ticker.unref();
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    clearInterval(ticker);
    server.off('connection', connected);
    if (tuner.inWave) options.setGrowingPercent(options.basePercent);
  };
}
