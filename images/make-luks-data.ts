// Wraps a filesystem image in a LUKS2 container of a partition's size, opened by KEY (the factory key), without
// the device mapper (images/lib/luks-data.ts): the encrypted image's data partition.
//   npx tsx images/make-luks-data.ts --fs data.img --out data-luks.img --size BYTES --key-file factory.key
import { parseArgs } from 'node:util';
import { writeLuksImage } from './lib/luks-data.js';

const { values } = parseArgs({
  options: {
    fs: { type: 'string' },
    out: { type: 'string' },
    size: { type: 'string' },
    'key-file': { type: 'string' },
  },
});
const size = Number(need(values.size, '--size'));
if (!Number.isSafeInteger(size) || size <= 0) throw new Error('--size must be a byte count');
await writeLuksImage({
  fsImage: need(values.fs, '--fs'),
  out: need(values.out, '--out'),
  size,
  keyFile: need(values['key-file'], '--key-file'),
});

function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new Error(`${flag} is required`);
  return value;
}
