import { readFile } from 'node:fs/promises';

/** Everything the CLI touches outside itself, so tests can run it in-process. */
export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(text: string): void;
  readFile(path: string): Promise<string>;
  readStdin(): Promise<string>;
  /** a fetch for the REST client; global fetch when absent */
  fetch?: typeof fetch;
}

/** Exit status when the reader of the output went away (`outpost ... | head -1`): the reader had what it wanted. */
export const EXIT_READER_GONE = 0;

export function processIo(): CliIo {
  for (const stream of [process.stdout, process.stderr]) exitQuietlyWhenReaderLeaves(stream);
  return {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readFile: (path) => readFile(path, 'utf8'),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

/**
 * Node ignores SIGPIPE, so a write to a pipe whose reader has closed fails with EPIPE, an 'error' event that would
 * crash with a stack trace; the CLI ends quietly instead (a watch would otherwise run on with nobody reading).
 */
function exitQuietlyWhenReaderLeaves(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT_READER_GONE);
    throw err;
  });
}
