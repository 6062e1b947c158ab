import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ApiError, registerDevicePath, registerDeviceResponseSchema } from '@outpost/shared';
import type { DeviceInfo, RegisterDeviceRequest, RegisterDeviceResponse } from '@outpost/shared';

export interface RegisterDeviceCall {
  server: string;
  provisioningToken: string;
  project: string;
  region: string;
  deviceId: string;
  deviceInfo?: DeviceInfo;
  /** the device's ed25519 public key (SPKI PEM); the server then issues no credential */
  publicKey?: string;
  timeoutMs?: number;
  /** PEM of the CA certificates trusted for an https server (--ca-file), instead of the system's */
  ca?: string;
}

/**
 * Registers this device with a project provisioning token. Throws an ApiError with the server's
 * status when it refuses, and UNAVAILABLE when it cannot be reached.
 */
export async function registerDevice(call: RegisterDeviceCall): Promise<RegisterDeviceResponse> {
  const url = new URL(registerDevicePath(call.project, call.region), withHttpScheme(call.server));
  const body: RegisterDeviceRequest = { deviceId: call.deviceId };
  if (call.deviceInfo !== undefined) body.deviceInfo = call.deviceInfo;
  if (call.publicKey !== undefined) body.publicKey = call.publicKey;

  let response: { status: number; text: string };
  try {
    response = await post(url, call, JSON.stringify(body));
  } catch (err) {
    throw new ApiError(
      'UNAVAILABLE',
      `cannot reach ${url.origin}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const json = parseJson(response.text);
  if (response.status < 200 || response.status >= 300) throw ApiError.fromBody(json, response.status);
  const parsed = registerDeviceResponseSchema.safeParse(json);
  if (!parsed.success) {
    throw new ApiError('INTERNAL', `the server's registration answer is not understood: ${parsed.error.message}`);
  }
  return parsed.data;
}

/** The server URL as an http(s) base, whatever scheme the user configured. */
export function withHttpScheme(server: string): string {
  const url = new URL(server);
  if (url.protocol === 'ws:') url.protocol = 'http:';
  if (url.protocol === 'wss:') url.protocol = 'https:';
  return url.toString();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** a registration answer is a device and a credential: far below this */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** node:https rather than fetch: it takes the --ca-file CA (fetch would need undici's dispatcher). */
function post(url: URL, call: RegisterDeviceCall, body: string): Promise<{ status: number; text: string }> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${call.provisioningToken}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
      signal: AbortSignal.timeout(call.timeoutMs ?? 30_000),
      ...(call.ca === undefined ? {} : { ca: call.ca }),
    });
    req.once('error', reject);
    req.once('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_ANSWER_BYTES) response.destroy(new Error(`the answer is over ${MAX_ANSWER_BYTES} bytes`));
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
