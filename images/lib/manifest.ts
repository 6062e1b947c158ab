// manifest.json of an OS version bundle (the input of `outpost os publish`).
export interface OsBundleManifest {
  version: string;
  deviceType: string;
  /** lowercase hex SHA-256 of rootfs.img */
  sha256: string;
  /** bytes of rootfs.img */
  size: number;
  /** base64 of the raw 64-byte Ed25519 signature over the 32-byte SHA-256 digest (same bytes as rootfs.img.sig) */
  signature: string;
}

export const BUNDLE_FILES = { image: 'rootfs.img', signature: 'rootfs.img.sig', manifest: 'manifest.json' } as const;

export function buildManifest(input: {
  version: string;
  deviceType: string;
  digest: Buffer;
  size: number;
  signature: Buffer;
}): OsBundleManifest {
  return {
    version: input.version,
    deviceType: input.deviceType,
    sha256: input.digest.toString('hex'),
    size: input.size,
    signature: input.signature.toString('base64'),
  };
}
