import type { DeviceCredentials } from '../devices/device-credentials.js';
import type { ArtifactAccess } from './artifact-routes.js';

/**
 * The device half of what the artifact routes check: the device a bearer authenticates, with what tells later
 * whether that credential still does, and the revocations (here or told by another replica) that cut downloads.
 */
export function deviceArtifactAccess(
  credentials: Pick<DeviceCredentials, 'authenticate' | 'stillAuthenticates' | 'onRevoked'>,
): Pick<ArtifactAccess, 'deviceOf' | 'onDeviceRevoked'> {
  return {
    deviceOf: (secret) => {
      const found = credentials.authenticate(secret);
      if (found === undefined) return undefined;
      const stillAuthenticates = (): boolean => credentials.stillAuthenticates(found.device, found.used);
      return { device: found.device, stillAuthenticates };
    },
    onDeviceRevoked: (listener) => void credentials.onRevoked(listener),
  };
}
