/**
 * What each device authenticates with, in the engine's store: the sha256 of a bearer credential, or an ed25519
 * public key (PEM). A device has at most one of the two: storing one removes the other, in one step.
 */
export interface DeviceCredentialRecords {
  /** The device's credential is now the secret with this sha256 (its key, if any, removed). */
  replaceWithSecret(device: string, secretSha256: Uint8Array, createTime: string): void;
  /** As replaceWithSecret for each of many devices (one write, not one per device). */
  replaceManyWithSecrets(secrets: readonly DeviceSecret[], createTime: string): void;
  /** The device's credential is now this public key (its bearer secret, if any, removed). */
  replaceWithKey(device: string, publicKeyPem: string, createTime: string): void;
  /** The device whose bearer secret has this sha256. */
  deviceOfSecret(secretSha256: Uint8Array): string | undefined;
  publicKeyOf(device: string): string | undefined;
  /** Removes the device's secret and key; false when it had neither. */
  remove(device: string): boolean;
}

/** A device and the sha256 of its new bearer secret. */
export interface DeviceSecret {
  device: string;
  secretSha256: Uint8Array;
}
