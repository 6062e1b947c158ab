/**
 * `droplet unlock-data` (what the encrypted image's boot unit runs) as a real child process against swtpm and a
 * LUKS2 container in a file: it enrols, unlocks a boot chain the policy accepts (exit 0) and fails a tampered
 * one (exit 1: the unit fails, nobody is asked for a passphrase). Skipped with a printed reason where swtpm,
 * tpm2-tools or cryptsetup are missing, except under CI=true.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { builtDroplet } from '../helpers/built-droplet.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { digestOf, extendedPcr, missingTpmTools, runsUnderCi, startSwtpm, withSbin } from './helpers/swtpm.js';
import type { SoftTpm } from './helpers/swtpm.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const tempDir = useTempDirs();
const tpms: SoftTpm[] = [];
afterEach(async () => {
  await Promise.all(tpms.splice(0).map((tpm) => tpm.stop()));
});

const missing = missingTpmTools();
const skip = missing.length > 0 && !runsUnderCi();
if (skip) console.warn(`droplet unlock-data tests skipped: ${missing.join(', ')} missing; CI=true requires them`);

function droplet(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [builtDroplet(), 'unlock-data', ...args],
      { cwd: repoRoot, env: withSbin(), timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, output: stdout + stderr });
      },
    );
  });
}

describe.skipIf(skip)('droplet unlock-data (child process, swtpm, LUKS2 file)', () => {
  it('enrols to slot A, unlocks its boots, fails a tampered chain with exit 1 and records each result', async () => {
    const dir = await tempDir();
    const device = join(dir, 'data.img');
    const key = join(dir, 'factory.key');
    await writeFile(key, 'factory');
    execFileSync('truncate', ['-s', '20M', device]);
    execFileSync(
      'cryptsetup',
      ['luksFormat', '--type', 'luks2', '--batch-mode', '--pbkdf', 'pbkdf2', '--pbkdf-force-iterations', '1000'].concat(
        ['--key-file', key, device],
      ),
      { env: withSbin() },
    );
    const measured = (path: string) => digestOf(`grub A ${path}`);
    const predictions = join(dir, 'pcr8.json');
    await writeFile(
      predictions,
      JSON.stringify({
        version: 1,
        pcr: 8,
        slots: { A: { normal: extendedPcr([measured('normal')]), fallback: extendedPcr([measured('fallback')]) } },
      }),
    );
    const config = join(dir, 'encrypted-data.json');
    await writeFile(config, JSON.stringify({ device, mapperName: 'outpost-data', predictionsFile: predictions }));
    const tpm = await startSwtpm(join(dir, 'tpm'));
    tpms.push(tpm);
    const runtimeDir = join(dir, 'run');
    const common = ['--config', config, '--tcti', tpm.tcti, '--runtime-dir', runtimeDir];
    const bootInto = async (path: string) => {
      await tpm.reboot();
      tpm.extend(7, digestOf('firmware'));
      tpm.extend(8, measured(path));
    };
    const record = async () => JSON.parse(await readFile(join(runtimeDir, 'unlock.json'), 'utf8')) as unknown;

    await bootInto('normal');
    const enrolled = await droplet([...common, '--enroll-with', key, '--slot', 'A']);
    expect(enrolled.code, enrolled.output).toBe(0);
    expect(enrolled.output).toMatch(/enrolled the TPM to unlock/);

    for (const path of ['normal', 'fallback']) {
      await bootInto(path);
      const unlocked = await droplet([...common, '--test-only']);
      expect(unlocked.code, unlocked.output).toBe(0);
      expect(unlocked.output).toMatch(/the TPM unlocked/);
      expect(await record()).toMatchObject({ unlocked: true });
    }

    await bootInto('tampered');
    const refused = await droplet([...common, '--test-only']);
    expect(refused.code, refused.output).toBe(1);
    expect(refused.output).toMatch(/the TPM did not unlock .*the recovery key opens it/);
    expect(await record()).toMatchObject({ unlocked: false });
  }, 300_000);

  it('does nothing on an image without the configuration, and refuses --enroll-with without --slot', async () => {
    const dir = await tempDir();
    const absent = await droplet(['--config', join(dir, 'none.json'), '--runtime-dir', join(dir, 'run')]);
    expect(absent.code, absent.output).toBe(0);
    expect(absent.output).toMatch(/the data partition is not encrypted/);
    const usage = await droplet(['--config', join(dir, 'none.json'), '--enroll-with', join(dir, 'k')]);
    expect(usage.code).toBe(2);
    expect(usage.output).toMatch(/--enroll-with and --slot go together/);
  }, 120_000);
});
