import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';

/**
 * A watch stream over a raw HTTP connection whose reader takes lines only when asked: between calls the
 * response is paused, so the server's socket fills up as it would for a client that stopped reading.
 */
export interface PausedWatch {
  /** the HTTP status of the response */
  status: number;
  /** reads and parses lines until `until` says stop (or the stream ends); pauses again afterwards */
  readUntil(
    until: (message: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>[]>;
  /** true once the server ended the response */
  ended(): boolean;
  close(): void;
}

export async function openPausedWatch(url: string, apiKey: string, body: unknown): Promise<PausedWatch> {
  const payload = JSON.stringify(body);
  const req = request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
    },
  });
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
    req.end(payload);
  });
  response.pause();
  response.setEncoding('utf8');
  let ended = false;
  response.once('end', () => (ended = true));
  response.once('close', () => (ended = true));
  let rest = '';
  const pending: Record<string, unknown>[] = [];

  const readUntil = (
    until: (message: Record<string, unknown>) => boolean,
    timeoutMs = 20_000,
  ): Promise<Record<string, unknown>[]> =>
    new Promise((resolve, reject) => {
      const got: Record<string, unknown>[] = [];
      const finish = (error?: Error): void => {
        clearTimeout(timer);
        response.off('data', onData);
        response.off('end', onEnd);
        response.pause();
        if (error) reject(error);
        else resolve(got);
      };
      const take = (): boolean => {
        while (pending.length > 0) {
          const message = pending.shift()!;
          got.push(message);
          if (until(message)) return true;
        }
        return false;
      };
      const onData = (text: string): void => {
        const lines = (rest + text).split('\n');
        rest = lines.pop()!;
        for (const line of lines) if (line.trim() !== '') pending.push(JSON.parse(line) as Record<string, unknown>);
        if (take()) finish();
      };
      const onEnd = (): void => {
        // an error answer is one JSON body, which need not end in a newline
        if (rest.trim() !== '') pending.push(JSON.parse(rest) as Record<string, unknown>);
        rest = '';
        take();
        finish();
      };
      const timer = setTimeout(() => finish(new Error(`no awaited watch message within ${timeoutMs} ms`)), timeoutMs);
      if (take()) return finish();
      response.on('data', onData);
      response.once('end', onEnd);
      response.resume();
    });

  return {
    status: response.statusCode ?? 0,
    readUntil,
    ended: () => ended,
    close: () => {
      req.destroy();
      response.destroy();
    },
  };
}
