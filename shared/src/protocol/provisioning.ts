import { z } from 'zod';
import { reportedDeviceInfoSchema } from './device-info.js';

/** Device ids (design.md "Names and fields"). */
export const DEVICE_ID_PATTERN = /^[a-z][a-z0-9-]{0,28}[a-z0-9]$/;

/**
 * Body of `POST /v1/projects/{p}/regions/{r}/devices:register`, authenticated with
 * `Authorization: Bearer <project provisioning token>`: a new device registers itself.
 */
export const registerDeviceRequestSchema = z.object({
  deviceId: z.string().regex(DEVICE_ID_PATTERN, 'a device id is [a-z][a-z0-9-]{0,28}[a-z0-9]'),
  deviceInfo: reportedDeviceInfoSchema.optional(),
});

/** The registered device and the credential it authenticates its link with from now on. */
export const registerDeviceResponseSchema = z.object({
  device: z.looseObject({ name: z.string().min(1) }),
  credential: z.string().min(1),
});

export type RegisterDeviceRequest = z.infer<typeof registerDeviceRequestSchema>;
export type RegisterDeviceResponse = z.infer<typeof registerDeviceResponseSchema>;

export const registerDevicePath = (project: string, region: string): string =>
  `/v1/projects/${encodeURIComponent(project)}/regions/${encodeURIComponent(region)}/devices:register`;
