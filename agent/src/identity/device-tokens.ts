import { readFileDeviceKey } from '@outpost/shared';
import { readCredential } from '../config/credential.js';
import type { ConnectVia } from '../config-apply/proxy/proxy-route.js';
import type { LinkCredential } from '../link/agent-link.js';
import { signedChallengeToken } from './device-token.js';

export interface DeviceTokensOptions {
  server: string;
  deviceName: string;
  /** {device_root}/config/identity: the key pair, when the device has one */
  identityDir: string;
  /** {device_root}/config/credential: the bearer credential of a device without a key pair */
  credentialFile: string;
  /** the credential this start registered with, if the file cannot be read */
  fallbackCredential?: string;
  ca?: string;
  /** how the challenge request is connected (through the device's proxy); default directly */
  connect?: ConnectVia;
}

/**
 * What the device authenticates each request with (the link's connection attempts, image downloads): a fresh
 * signed challenge when it has a key pair, else its bearer credential. Both files are read at every call, so a
 * re-key, an enrolment or a rotated credential is picked up without a restart.
 */
export function deviceTokens(options: DeviceTokensOptions): () => Promise<string> {
  const credential = linkCredentials(options);
  return async () => {
    const current = await credential();
    if (typeof current === 'string') return current;
    return signedChallengeToken({
      server: options.server,
      deviceName: current.deviceName,
      key: current.key,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      ...(options.connect === undefined ? {} : { connect: options.connect }),
    });
  };
}

/**
 * What the agent link authenticates each attempt with: the key pair when the device has one (it answers the
 * server's challenge on the link itself, so no challenge request is made), else the bearer credential. Both
 * files are read at every call, as for deviceTokens.
 */
export function linkCredentials(
  options: Pick<DeviceTokensOptions, 'deviceName' | 'identityDir' | 'credentialFile' | 'fallbackCredential'>,
): () => Promise<LinkCredential> {
  return async () => {
    const key = await readFileDeviceKey(options.identityDir);
    if (key !== undefined) return { deviceName: options.deviceName, key };
    const credential = (await readCredential(options.credentialFile)) ?? options.fallbackCredential;
    if (credential === undefined) {
      throw new Error(`the device has neither a key pair in ${options.identityDir} nor ${options.credentialFile}`);
    }
    return credential;
  };
}
