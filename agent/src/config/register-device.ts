import { ApiError, registerDevicePath, registerDeviceResponseSchema } from '@outpost/shared';
import type { DeviceInfo, RegisterDeviceRequest, RegisterDeviceResponse } from '@outpost/shared';
import { postJson } from '../identity/post-json.js';

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

/** a registration answer is a device and a credential: far below this */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * Registers this device with a project provisioning token. Throws an ApiError with the server's
 * status when it refuses, and UNAVAILABLE when it cannot be reached.
 */
export async function registerDevice(call: RegisterDeviceCall): Promise<RegisterDeviceResponse> {
  const url = new URL(registerDevicePath(call.project, call.region), withHttpScheme(call.server));
  const body: RegisterDeviceRequest = { deviceId: call.deviceId };
  if (call.deviceInfo !== undefined) body.deviceInfo = call.deviceInfo;
  if (call.publicKey !== undefined) body.publicKey = call.publicKey;

  const json = await postJson(url, body, {
    authorization: `Bearer ${call.provisioningToken}`,
    timeoutMs: call.timeoutMs,
    ca: call.ca,
    maxAnswerBytes: MAX_ANSWER_BYTES,
  });
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
