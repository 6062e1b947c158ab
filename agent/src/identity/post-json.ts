import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ApiError } from '@outpost/shared';
import type { ConnectVia } from '../config-apply/proxy/proxy-route.js';

export interface PostJsonOptions {
  /** the Authorization header, if any */
  authorization?: string;
  /** PEM of the CA certificates trusted for an https server (--ca-file), instead of the system's */
  ca?: string;
  timeoutMs?: number;
  /** how the request is connected (through the device's proxy); default directly */
  connect?: ConnectVia;
  /** a longer answer fails the request; default 64 KiB (a challenge, a device name are far below it) */
  maxAnswerBytes?: number;
}

/**
 * POSTs `body` as JSON and returns the parsed answer; a refusal throws the server's ApiError, an unreachable
 * server UNAVAILABLE. node:http(s) rather than fetch: it takes the --ca-file CA.
 */
export async function postJson(url: URL, body: unknown, options: PostJsonOptions = {}): Promise<unknown> {
  let answer: { status: number; text: string };
  try {
    answer = await post(url, JSON.stringify(body), options);
  } catch (err) {
    throw new ApiError(
      'UNAVAILABLE',
      `cannot reach ${url.origin}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(answer.text) as unknown;
  } catch {
    json = undefined;
  }
  if (answer.status < 200 || answer.status >= 300) throw ApiError.fromBody(json, answer.status);
  return json;
}

function post(url: URL, body: string, options: PostJsonOptions): Promise<{ status: number; text: string }> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const createConnection = options.connect?.(url);
  return new Promise((resolve, reject) => {
    const maxAnswerBytes = options.maxAnswerBytes ?? 64 * 1024;
    const req = request(url, {
      method: 'POST',
      headers: {
        ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      ...(createConnection === undefined ? {} : { createConnection }),
    });
    req.once('error', reject);
    req.once('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxAnswerBytes) response.destroy(new Error(`the answer is over ${maxAnswerBytes} bytes`));
        else chunks.push(chunk);
      });
      response.once('error', reject);
      response.once('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.end(body);
  });
}
