// Key generation, signing and verification of OS images with Node's crypto (no CLI needed yet).
//   npx tsx images/sign.ts keygen --out DIR [--name os-signing]  -> DIR/NAME.key (PKCS#8 PEM), DIR/NAME.pub (SPKI PEM)
//   npx tsx images/sign.ts sign --key K.key FILE [--out FILE.sig] -> raw 64-byte signature; prints it in base64
//   npx tsx images/sign.ts verify --pub K.pub FILE [--sig FILE.sig] -> exit 0 when valid, 1 when not
// The signed message is the 32-byte SHA-256 digest of FILE.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateSigningKeyPair, sha256OfFile, signDigest, verifyDigest } from './lib/signing.js';

const USAGE =
  'usage: sign.ts keygen --out DIR [--name NAME] | sign --key KEY FILE [--out SIG] | verify --pub PUB FILE [--sig SIG]';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      name: { type: 'string', default: 'os-signing' },
      key: { type: 'string' },
      pub: { type: 'string' },
      sig: { type: 'string' },
    },
  });
  const file = positionals[0];
  switch (command) {
    case 'keygen': {
      const dir = required(values.out, '--out');
      const keys = generateSigningKeyPair();
      mkdirSync(dir, { recursive: true });
      const keyPath = join(dir, `${values.name}.key`);
      writeFileSync(keyPath, keys.privateKeyPem, { mode: 0o600 });
      chmodSync(keyPath, 0o600);
      writeFileSync(join(dir, `${values.name}.pub`), keys.publicKeyPem);
      console.log(keyPath);
      return 0;
    }
    case 'sign': {
      const input = required(file, 'FILE');
      const signature = signDigest(readFileSync(required(values.key, '--key'), 'utf8'), await sha256OfFile(input));
      writeFileSync(values.out ?? `${input}.sig`, signature);
      console.log(signature.toString('base64'));
      return 0;
    }
    case 'verify': {
      const input = required(file, 'FILE');
      const signature = readFileSync(values.sig ?? `${input}.sig`);
      const ok = verifyDigest(
        readFileSync(required(values.pub, '--pub'), 'utf8'),
        await sha256OfFile(input),
        signature,
      );
      console.log(ok ? 'valid' : 'INVALID');
      return ok ? 0 : 1;
    }
    default:
      console.error(USAGE);
      return 2;
  }
}

function required(value: string | undefined, what: string): string {
  if (value === undefined) throw new Error(`${what} is required\n${USAGE}`);
  return value;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
