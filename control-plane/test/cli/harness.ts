import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import type { ContextFactory } from '../../src/cli/context.js';
import { registerIamCommands } from '../../src/cli/iam-commands.js';
import type { CliIo } from '../../src/cli/io.js';
import { createProgram, runProgram } from '../../src/cli/program.js';
import type { Command } from 'commander';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  authorization: string | undefined;
}

/** A real HTTP server on 127.0.0.1 that records every request and lets the test answer it. */
export async function startRecordingServer(answer: (req: RecordedRequest, res: Response) => void) {
  const requests: RecordedRequest[] = [];
  const app = express();
  app.use(express.json());
  app.use((req, res) => {
    const recorded: RecordedRequest = {
      method: req.method,
      path: decodeURIComponent(req.path),
      query: new URL(req.originalUrl, 'http://x').searchParams,
      body: req.body as unknown,
      authorization: req.get('authorization'),
    };
    requests.push(recorded);
    answer(recorded, res);
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type Registrar = (program: Command, ctxFactory: ContextFactory) => void;

/** Runs `outpost <argv>` in-process, as main.ts does, and captures what it prints. */
export async function runCli(
  argv: string[],
  options: {
    env?: Record<string, string>;
    stdin?: string;
    register?: Registrar;
    /** the CLI's fetch (e.g. one a test aborts to end a watch) */
    fetch?: typeof fetch;
    /** sees everything printed to stdout so far, after each write */
    onStdout?: (stdout: string) => void;
  } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    env: options.env ?? {},
    stdout: (t) => {
      stdout += t;
      options.onStdout?.(stdout);
    },
    stderr: (t) => (stderr += t),
    readFile: (path) => readFile(path, 'utf8'),
    readStdin: () => Promise.resolve(options.stdin ?? ''),
    fetch: options.fetch,
  };
  const { program, ctxFactory } = createProgram(io);
  registerIamCommands(program, ctxFactory);
  options.register?.(program, ctxFactory);
  const code = await runProgram(program, argv, io);
  return { code, stdout, stderr };
}
