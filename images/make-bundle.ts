// Writes an OS version bundle's signature and manifest next to its image, then verifies them.
//   npx tsx images/make-bundle.ts --dir DIR --version 1.1.0 --device-type qemu-x86_64 --key os-signing.key
// DIR must hold rootfs.img; adds rootfs.img.sig (raw 64 bytes) and manifest.json.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUNDLE_FILES, buildManifest } from './lib/manifest.js';
import { publicKeyPemOf, sha256OfFile, signDigest, verifyDigest } from './lib/signing.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    version: { type: 'string' },
    'device-type': { type: 'string' },
    key: { type: 'string' },
  },
});
const dir = need(values.dir, '--dir');
const privateKeyPem = readFileSync(need(values.key, '--key'), 'utf8');
const image = join(dir, BUNDLE_FILES.image);

const digest = await sha256OfFile(image);
const signature = signDigest(privateKeyPem, digest);
if (!verifyDigest(publicKeyPemOf(privateKeyPem), digest, signature)) throw new Error('fresh signature does not verify');
const manifest = buildManifest({
  version: need(values.version, '--version'),
  deviceType: need(values['device-type'], '--device-type'),
  digest,
  size: statSync(image).size,
  signature,
});
writeFileSync(join(dir, BUNDLE_FILES.signature), signature);
writeFileSync(join(dir, BUNDLE_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(JSON.stringify(manifest));

function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new Error(`${flag} is required`);
  return value;
}
