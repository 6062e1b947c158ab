import { z } from 'zod';
import { reportedDeviceInfoSchema } from './device-info.js';
import { devicePublicKeySchema } from './device-proof.js';

/** Device ids (design.md "Names and fields"). */
export const DEVICE_ID_PATTERN = /^[a-z][a-z0-9-]{0,28}[a-z0-9]$/;

/**
 * Body of `POST /v1/projects/{p}/regions/{r}/devices:register`, authenticated with
 * `Authorization: Bearer <project provisioning token>`: a new device registers itself.
 */
export const registerDeviceRequestSchema = z.object({
  deviceId: z.string().regex(DEVICE_ID_PATTERN, 'a device id is [a-z][a-z0-9-]{0,28}[a-z0-9]'),
  deviceInfo: reportedDeviceInfoSchema.optional(),
  /** the device's ed25519 public key (SPKI PEM): it will prove possession of the key instead of holding a credential */
  publicKey: devicePublicKeySchema.optional(),
});

/** The registered device and, when it sent no public key, the credential it authenticates its link with. */
export const registerDeviceResponseSchema = z.object({
  device: z.looseObject({ name: z.string().min(1) }),
  credential: z.string().min(1).optional(),
});

export type RegisterDeviceRequest = z.infer<typeof registerDeviceRequestSchema>;
export type RegisterDeviceResponse = z.infer<typeof registerDeviceResponseSchema>;

export const registerDevicePath = (project: string, region: string): string =>
  `/v1/projects/${encodeURIComponent(project)}/regions/${encodeURIComponent(region)}/devices:register`;
