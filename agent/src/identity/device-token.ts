import {
  deviceChallengePath,
  deviceChallengeResponseSchema,
  deviceProofMessage,
  formatDeviceProof,
  ApiError,
} from '@outpost/shared';
import type { DeviceKey } from '@outpost/shared';
import type { ConnectVia } from '../config-apply/proxy/proxy-route.js';
import { postJson } from './post-json.js';

export interface DeviceProofRequest {
  /** the control plane's base URL (http, https, ws or wss) */
  server: string;
  deviceName: string;
  key: DeviceKey;
  /** the --ca-file CA, for an https server */
  ca?: string;
  /** how the challenge request is connected (through the device's proxy); default directly */
  connect?: ConnectVia;
}

/**
 * A one-time bearer token proving the device holds its key: asks the server for a fresh challenge and signs it
 * (deviceProofMessage). Good for one request, which must follow soon (the challenge expires in a minute).
 */
export async function signedChallengeToken(request: DeviceProofRequest): Promise<string> {
  const url = new URL(deviceChallengePath(request.deviceName), httpBase(request.server));
  const answer = deviceChallengeResponseSchema.safeParse(
    await postJson(
      url,
      {},
      {
        ...(request.ca === undefined ? {} : { ca: request.ca }),
        ...(request.connect === undefined ? {} : { connect: request.connect }),
      },
    ),
  );
  if (!answer.success)
    throw new ApiError('INTERNAL', `the server's challenge is not understood: ${answer.error.message}`);
  const { challenge } = answer.data;
  const signature = await request.key.sign(deviceProofMessage(request.deviceName, challenge));
  return formatDeviceProof({ device: request.deviceName, challenge, signature });
}

/** The server URL as an http(s) base, whatever scheme the user configured. */
export function httpBase(server: string): string {
  const url = new URL(server);
  if (url.protocol === 'ws:') url.protocol = 'http:';
  if (url.protocol === 'wss:') url.protocol = 'https:';
  url.pathname = '/';
  return url.toString();
}
