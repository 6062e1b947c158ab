import { ApiError, internalError } from '../errors/api-error.js';

/**
 * The JSON values of a newline-delimited JSON body, as they arrive. Blank lines are skipped; a
 * line that is an error body (`{"error": {...}}`) ends the stream with that ApiError. Leaving the
 * loop early cancels the body.
 */
export async function* readNdjson(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffered += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n', start)) {
        const line = buffered.slice(start, newline);
        start = newline + 1;
        if (line.trim() !== '') yield parseLine(line);
      }
      buffered = buffered.slice(start);
      if (done) break;
    }
    if (buffered.trim() !== '') yield parseLine(buffered);
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function parseLine(line: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw internalError(`malformed line in response stream: ${line.slice(0, 200)}`);
  }
  if (isErrorBody(value)) throw ApiError.fromBody(value, 500);
  return value;
}

function isErrorBody(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const error = (value as { error?: unknown }).error;
  return keys.length === 1 && typeof error === 'object' && error !== null && 'status' in error;
}
