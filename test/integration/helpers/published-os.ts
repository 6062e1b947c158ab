import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Replica } from './cluster-replicas.js';
import { runCli } from './processes.js';
import { TEST_ADMIN_KEY } from '../../../control-plane/test/helpers/test-server.js';

/** The environment of the CLI run against `replica` as the admin. */
export const cliEnv = (replica: Replica): Record<string, string> => ({
  OUTPOST_SERVER: replica.url,
  OUTPOST_API_KEY: TEST_ADMIN_KEY,
});

/**
 * `outpost os keygen` (into `<work>/signing.key` and `.pub`) and `outpost os publish` through `replica` of `bytes`
 * as OS version 1.1.0 of device type simulated: its artifact.
 */
export async function publishSimulated110(
  replica: Replica,
  work: string,
  bytes: Buffer,
): Promise<{ sha256: string; size: number }> {
  const keygen = await runCli(['os', 'keygen', join(work, 'signing')], cliEnv(replica));
  expect(keygen.code, keygen.stderr).toBe(0);
  const image = join(work, 'image-1.1.0.img');
  writeFileSync(image, bytes);
  const publish = await runCli(
    [
      'os',
      'publish',
      '--device-type',
      'simulated',
      '--version',
      '1.1.0',
      '--image',
      image,
      '--key',
      join(work, 'signing.key'),
    ],
    cliEnv(replica),
  );
  expect(publish.code, publish.stderr + publish.stdout).toBe(0);
  const version = await replica.admin.get<{ artifact: { sha256: string; size: number } }>('osVersions/simulated-1.1.0');
  return version.artifact;
}
