import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number): void;
  stop(): void;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** A byte count in the unit that fits its size: `512 B`, `1.5 KiB`, `40.0 MiB`, `2.3 GiB`. */
export function formatBytes(bytes: number): string {
  let value = Math.max(bytes, 0);
  let unit = 0;
  // compared as shown: 1023.96 KiB would read 1024.0 KiB, which is 1.0 MiB
  while (unit < UNITS.length - 1 && (unit === 0 ? value : Number(value.toFixed(1))) >= 1024) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/**
 * A progress bar on stderr for a person waiting on a transfer; without a terminal, a line every few seconds,
 * so logs of scripted runs still show movement.
 */
export function progressBar(label: string, total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {percentage}% {doneBytes}/{totalBytes} {speed}/s eta {eta}s`,
        stream,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    const started = Date.now();
    bar.start(total, 0, { doneBytes: formatBytes(0), totalBytes: formatBytes(total), speed: formatBytes(0) });
    return {
      update: (done) =>
        bar.update(done, {
          doneBytes: formatBytes(done),
          speed: formatBytes(done / Math.max((Date.now() - started) / 1000, 0.001)),
        }),
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  return {
    update: (done) => {
      if (Date.now() - last < 5000 && done < total) return;
      last = Date.now();
      const percent = total ? Math.floor((done * 100) / total) : 100;
      stream.write(`${label}: ${formatBytes(done)}/${formatBytes(total)} (${percent}%)\n`);
    },
    stop: () => undefined,
  };
}
