import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number): void;
  stop(): void;
}

const mib = (n: number): string => (n / 1048576).toFixed(1);

/**
 * A progress bar on stderr for a person waiting on a transfer; without a terminal, a line every few seconds,
 * so logs of scripted runs still show movement.
 */
export function progressBar(label: string, total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {percentage}% {doneMiB}/{totalMiB} MiB {speed} MiB/s eta {eta}s`,
        stream,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    const started = Date.now();
    bar.start(total, 0, { doneMiB: '0.0', totalMiB: mib(total), speed: '0.0' });
    return {
      update: (done) =>
        bar.update(done, { doneMiB: mib(done), speed: mib(done / Math.max((Date.now() - started) / 1000, 0.001)) }),
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  return {
    update: (done) => {
      if (Date.now() - last < 5000 && done < total) return;
      last = Date.now();
      stream.write(`${label}: ${mib(done)}/${mib(total)} MiB (${total ? Math.floor((done * 100) / total) : 100}%)\n`);
    },
    stop: () => undefined,
  };
}
