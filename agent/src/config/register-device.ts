import { ApiError, registerDevicePath, registerDeviceResponseSchema } from '@outpost/shared';
import type { DeviceInfo, RegisterDeviceRequest, RegisterDeviceResponse } from '@outpost/shared';

export interface RegisterDeviceCall {
  server: string;
  provisioningToken: string;
  project: string;
  region: string;
  deviceId: string;
  deviceInfo?: DeviceInfo;
  timeoutMs?: number;
}

/**
 * Registers this device with a project provisioning token. Throws an ApiError with the server's
 * status when it refuses, and UNAVAILABLE when it cannot be reached.
 */
export async function registerDevice(call: RegisterDeviceCall): Promise<RegisterDeviceResponse> {
  const url = new URL(registerDevicePath(call.project, call.region), withHttpScheme(call.server));
  const body: RegisterDeviceRequest = { deviceId: call.deviceId };
  if (call.deviceInfo !== undefined) body.deviceInfo = call.deviceInfo;

  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${call.provisioningToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(call.timeoutMs ?? 30_000),
    });
  } catch (err) {
    throw new ApiError('UNAVAILABLE', `cannot reach ${url.origin}: ${describeFetchError(err)}`);
  }
  const text = await response.text();
  const json = parseJson(text);
  if (!response.ok) throw ApiError.fromBody(json, response.status);
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

function describeFetchError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}
