/**
 * Where a device's private key lives. The link and the requests only ask for the public key and for signatures,
 * so a key held by a TPM can stand in for the file-held one.
 */
export interface DeviceKey {
  /** the ed25519 public key, SPKI PEM (what the control plane stores) */
  publicKey(): Promise<string>;
  /** an ed25519 signature of `message` */
  sign(message: Uint8Array): Promise<Buffer>;
}
