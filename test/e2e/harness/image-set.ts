import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { IMAGES_OUT } from './paths.js';

/** One signed OS version bundle of images/out/bundles/. */
export interface OsBundle {
  /** folder name, e.g. `1.2.0-no-commit` */
  name: string;
  version: string;
  /** normal | no-commit | kernel-panic */
  variant: string;
  /** the slot filesystem image to publish */
  rootfsImage: string;
  manifest: { version: string; deviceType: string; sha256: string; size: number; signature: string };
}

/** What images/build-all.sh produced (images/out/images.json), with absolute paths. */
export interface ImageSet {
  deviceType: string;
  /** the raw base disk: boot it through a qcow2 overlay only */
  disk: string;
  /** the version in slot A of `disk` */
  factoryVersion: string;
  publicKey: string;
  /** the private key the bundles were signed with */
  signingKey: string;
  bundles: OsBundle[];
  /** the encrypted image set (images/build-all.sh --encrypted): a LUKS2 data partition the TPM unlocks */
  encryptedData?: EncryptedData;
  /** the bundle of a variant (`normal` by default) with this version */
  bundle(version: string): OsBundle;
}

export interface EncryptedData {
  /** where the first boot finds the factory key on the ESP (a path inside it) */
  factoryKey: string;
}

interface ImagesIndex {
  deviceType: string;
  disk: string;
  diskSlotA: { version: string };
  publicKey: string;
  signingKey?: string;
  bundles: { name: string; version: string; variant: string; dir: string }[];
  encryptedData?: EncryptedData;
}

export function loadImageSet(outDir = IMAGES_OUT): ImageSet {
  const indexFile = join(outDir, 'images.json');
  if (!existsSync(indexFile)) {
    throw new Error(`${indexFile} is missing: build the images first (npm run test:e2e does, or images/build-all.sh)`);
  }
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as ImagesIndex;
  const resolve = (path: string): string => (isAbsolute(path) ? path : join(outDir, path));
  const signingKey = index.signingKey ?? join(outDir, '..', '.cache', 'keys', 'os-signing.key');
  const bundles = index.bundles.map((entry): OsBundle => {
    const dir = resolve(entry.dir);
    return {
      name: entry.name,
      version: entry.version,
      variant: entry.variant,
      rootfsImage: join(dir, 'rootfs.img'),
      manifest: JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as OsBundle['manifest'],
    };
  });
  const set: ImageSet = {
    deviceType: index.deviceType,
    disk: resolve(index.disk),
    factoryVersion: index.diskSlotA.version,
    publicKey: resolve(index.publicKey),
    signingKey,
    bundles,
    ...(index.encryptedData === undefined ? {} : { encryptedData: { factoryKey: index.encryptedData.factoryKey } }),
    bundle(version) {
      const found = bundles.find((b) => b.version === version);
      if (found === undefined) {
        throw new Error(`no OS bundle ${version} in ${indexFile} (have ${bundles.map((b) => b.name).join(', ')})`);
      }
      return found;
    },
  };
  for (const file of [set.disk, set.publicKey, set.signingKey, ...bundles.map((b) => b.rootfsImage)]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: rebuild the images (images/build-all.sh)`);
  }
  return set;
}
