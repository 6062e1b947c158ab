/**
 * The real `tpm2` unlock adapter against Debian's swtpm and a LUKS2 container in a file, through tpm2-tools and
 * cryptsetup (issue 20). A "boot" kills and restarts swtpm (a power cut: no TPM2_Shutdown; PCRs from zero) and extends PCR 7 and 8 as firmware and GRUB
 * would; the image's PCR 8 prediction table names the values of each slot's boot paths. Skipped with a printed
 * reason where swtpm, tpm2-tools or cryptsetup are missing, except under CI=true (.ci/run installs them).
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Slot } from '@outpost/shared';
import { execFileCommands } from '../../src/config-apply/command-runner.js';
import { tpm2Unlock } from '../../src/os/unlock/tpm2-adapter.js';
import type { Tpm2Unlock } from '../../src/os/unlock/tpm2-adapter.js';
import { policyOrOf, policyPcrDigest } from '../../src/os/unlock/tpm2-policy.js';
import type { Pcr8Predictions } from '../../src/os/unlock/tpm2-predictions.js';
import { UnlockPrepareError } from '../../src/os/unlock/unlock-adapter.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { digestOf, extendedPcr, missingTpmTools, runsUnderCi, startSwtpm, withSbin } from './helpers/swtpm.js';
import type { SoftTpm } from './helpers/swtpm.js';

const tempDir = useTempDirs();
const tpms: SoftTpm[] = [];
afterEach(async () => {
  await Promise.all(tpms.splice(0).map((tpm) => tpm.stop()));
});

const missing = missingTpmTools();
const skip = missing.length > 0 && !runsUnderCi();
if (skip) {
  // the default reporter shows a skip only as a count: say why on stderr too
  console.warn(
    `tpm2 adapter tests skipped: ${missing.join(', ')} missing (apt-get install swtpm tpm2-tools cryptsetup-bin); CI=true requires them`,
  );
}

const PATHS = ['normal', 'trial', 'fallback'] as const;
type BootPath = (typeof PATHS)[number];
/** what "GRUB" measures into PCR 8 on each path: the digest extended from zero */
const grubMeasures = (slot: Slot, path: BootPath | 'tampered'): string => digestOf(`grub ${slot} ${path}`);
const FIRMWARE = digestOf('secure boot state');
const sh = (argv: string[]) => execFileSync(argv[0]!, argv.slice(1), { stdio: 'pipe', env: withSbin() });

/** a LUKS2 container in a file with passphrase `provisioning`, a swtpm, the adapter, and a way to boot */
async function encryptedDevice(table: Pcr8Predictions = predictionsFor(['A', 'B'])) {
  const dir = await tempDir();
  const device = join(dir, 'data.img');
  const provisioningKey = join(dir, 'provisioning.key');
  await writeFile(provisioningKey, 'provisioning');
  sh(['truncate', '-s', '20M', device]);
  sh([
    'cryptsetup',
    'luksFormat',
    '--type',
    'luks2',
    '--batch-mode',
    '--pbkdf',
    'pbkdf2',
    '--pbkdf-force-iterations',
    '1000',
    '--key-file',
    provisioningKey,
    device,
  ]);
  const predictionsFile = join(dir, 'pcr8-predictions.json');
  await writeFile(predictionsFile, JSON.stringify(table));
  const tpm = await startSwtpm(join(dir, 'tpm'));
  tpms.push(tpm);
  let boot = 0;
  let clock = 1_000;
  const adapter = tpm2Unlock({
    commands: execFileCommands({ env: { PATH: withSbin()['PATH'] ?? '' } }),
    device,
    tcti: tpm.tcti,
    predictionsFile,
    runtimeDir: join(dir, 'run'),
    bootRecordFile: join(dir, 'run', 'unlock.json'),
    bootId: async () => `boot-${boot}`,
    now: () => clock++,
  });
  /** power cycle, then firmware and GRUB measure the boot of `slot` on `path` */
  const bootInto = async (slot: Slot, path: BootPath | 'tampered'): Promise<void> => {
    await tpm.reboot();
    boot++;
    tpm.extend(7, FIRMWARE);
    tpm.extend(8, grubMeasures(slot, path));
  };
  return { dir, device, provisioningKey, tpm, adapter, bootInto };
}

function predictionsFor(slots: readonly Slot[]): Pcr8Predictions {
  const table: Pcr8Predictions = { version: 1, pcr: 8, slots: {} };
  for (const slot of slots) {
    table.slots[slot] = Object.fromEntries(PATHS.map((path) => [path, extendedPcr([grubMeasures(slot, path)])]));
  }
  return table;
}

/** which (slot, path) boots unlock the data now */
async function unlockingBoots(
  adapter: Tpm2Unlock,
  bootInto: (slot: Slot, path: BootPath | 'tampered') => Promise<void>,
): Promise<string[]> {
  const unlocking: string[] = [];
  for (const slot of ['A', 'B'] as const) {
    for (const path of [...PATHS, 'tampered'] as const) {
      await bootInto(slot, path);
      const result = await adapter.unlockAtBoot('test');
      expect(await adapter.unlockedThisBoot()).toBe(result.unlocked);
      if (result.unlocked) unlocking.push(`${slot} ${path}`);
    }
  }
  return unlocking;
}

const ALL_OF = (slot: Slot) => PATHS.map((path) => `${slot} ${path}`);

describe.skipIf(skip)('tpm2 unlock adapter (swtpm, tpm2-tools, cryptsetup on a LUKS2 file)', () => {
  it('needs swtpm, tpm2-tools and cryptsetup (CI=true installs them)', () => {
    expect(missing, 'apt-get install swtpm tpm2-tools cryptsetup-bin').toEqual([]);
  });

  it('computes the PolicyPCR and PolicyOR digests tpm2-tools computes in trial sessions', async () => {
    const { dir, tpm } = await encryptedDevice();
    const branches = [
      new Map([
        [7, digestOf('seven')],
        [8, digestOf('eight')],
      ]),
      new Map([
        [7, digestOf('seven')],
        [8, digestOf('other eight')],
      ]),
    ];
    const files: string[] = [];
    for (const [index, pcrs] of branches.entries()) {
      const values = join(dir, `values-${index}.bin`);
      await writeFile(values, Buffer.concat([...pcrs.values()].map((hex) => Buffer.from(hex, 'hex'))));
      const session = join(dir, `trial-${index}.ctx`);
      const policy = join(dir, `branch-${index}.policy`);
      sh(['tpm2_startauthsession', '-T', tpm.tcti, '-S', session]);
      sh(['tpm2_policypcr', '-T', tpm.tcti, '-S', session, '-l', 'sha256:7,8', '-f', values, '-L', policy]);
      sh(['tpm2_flushcontext', '-T', tpm.tcti, session]);
      expect((await readFile(policy)).toString('hex')).toBe(policyPcrDigest({ pcrs }).toString('hex'));
      files.push(policy);
    }
    const session = join(dir, 'trial-or.ctx');
    const or = join(dir, 'or.policy');
    sh(['tpm2_startauthsession', '-T', tpm.tcti, '-S', session]);
    sh(['tpm2_policyor', '-T', tpm.tcti, '-S', session, '-L', or, `sha256:${files.join(',')}`]);
    sh(['tpm2_flushcontext', '-T', tpm.tcti, session]);
    expect((await readFile(or)).toString('hex')).toBe(
      policyOrOf(branches.map((pcrs) => ({ pcrs }))).policy.toString('hex'),
    );
  });

  it('enrols to slot A, widens to A and B before a switch, narrows to B after the commit; a tampered chain never unlocks', async () => {
    const { adapter, bootInto, provisioningKey, device } = await encryptedDevice();
    await bootInto('A', 'normal');
    expect(await adapter.readBinding()).toEqual({ slots: [] });
    expect(await adapter.enroll(provisioningKey, ['A'], 'enrolled at provisioning')).toEqual({
      slots: ['A'],
      changedAtMs: 1_000,
      reason: 'enrolled at provisioning',
    });
    expect(await unlockingBoots(adapter, bootInto)).toEqual(ALL_OF('A'));

    await bootInto('A', 'normal');
    expect(await adapter.seal(['A', 'B'], 'slot B is about to be tried')).toMatchObject({ slots: ['A', 'B'] });
    expect(await adapter.readBinding()).toMatchObject({ slots: ['A', 'B'], reason: 'slot B is about to be tried' });
    expect(await unlockingBoots(adapter, bootInto)).toEqual([...ALL_OF('A'), ...ALL_OF('B')]);

    await bootInto('B', 'normal');
    expect(await adapter.seal(['B'], 'slot B is committed')).toMatchObject({ slots: ['B'] });
    expect(await unlockingBoots(adapter, bootInto)).toEqual(ALL_OF('B'));
    // the provisioning key slot is untouched by the re-seals
    sh(['cryptsetup', 'open', '--test-passphrase', '--key-file', provisioningKey, device]);
  }, 300_000);

  it('refuses to re-seal from a boot chain the policy does not accept, and the old policy stands', async () => {
    const { adapter, bootInto, provisioningKey } = await encryptedDevice();
    await bootInto('A', 'normal');
    await adapter.enroll(provisioningKey, ['A'], 'enrolled');
    await bootInto('A', 'tampered');
    expect(await adapter.unlockAtBoot('test')).toMatchObject({ unlocked: false });
    expect(await adapter.unlockedThisBoot()).toBe(false);
    const refused = await adapter.seal(['A', 'B'], 'widen').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(UnlockPrepareError);
    expect(String(refused)).toMatch(/does not release the key at this boot/);
    await bootInto('A', 'trial');
    expect(await adapter.readBinding()).toMatchObject({ slots: ['A'], reason: 'enrolled' });
    expect(await adapter.unlockAtBoot('test')).toEqual({ unlocked: true });
  }, 120_000);

  it('refuses a slot the image has no PCR 8 prediction for, and a second enrolment', async () => {
    const { adapter, bootInto, provisioningKey } = await encryptedDevice(predictionsFor(['A']));
    await bootInto('A', 'normal');
    await adapter.enroll(provisioningKey, ['A'], 'enrolled');
    const refused = await adapter.seal(['A', 'B'], 'widen').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(UnlockPrepareError);
    expect(String(refused)).toMatch(/slot B cannot be predicted/);
    await expect(adapter.enroll(provisioningKey, ['A'], 'again')).rejects.toThrow(/already has a TPM-sealed key/);
    expect(await adapter.readBinding()).toMatchObject({ slots: ['A'], reason: 'enrolled' });
  }, 120_000);

  it('reports a device that was never enrolled as not unlocked, and refuses to seal it', async () => {
    const { adapter, bootInto } = await encryptedDevice();
    await bootInto('A', 'normal');
    expect(await adapter.unlockAtBoot('test')).toEqual({
      unlocked: false,
      reason: expect.stringMatching(/has no TPM-sealed key/),
    });
    await expect(adapter.seal(['A'], 'narrow')).rejects.toThrow(/never enrolled/);
  }, 60_000);

  it('enrols a wrong existing key nowhere', async () => {
    const { adapter, bootInto, dir } = await encryptedDevice();
    await bootInto('A', 'normal');
    const wrong = join(dir, 'wrong.key');
    await writeFile(wrong, 'not the passphrase');
    await expect(adapter.enroll(wrong, ['A'], 'enrolled')).rejects.toThrow(/luksAddKey exited/);
    expect(await adapter.readBinding()).toEqual({ slots: [] });
  }, 60_000);

  it('adds the recovery key as another key slot, authorised by the TPM-sealed key of this boot', async () => {
    const { adapter, bootInto, provisioningKey, dir, device } = await encryptedDevice();
    await bootInto('A', 'normal');
    await adapter.enroll(provisioningKey, ['A'], 'enrolled');
    const recovery = join(dir, 'recovery.key');
    await writeFile(recovery, 'cbdefghi-jklnrtuv-cbdefghi-jklnrtuv');
    const slot = await adapter.addRecoveryKey(recovery);
    expect(slot).toBeGreaterThan(1);
    sh(['cryptsetup', 'open', '--test-passphrase', '--key-slot', String(slot), '--key-file', recovery, device]);
    await bootInto('A', 'tampered');
    await expect(adapter.addRecoveryKey(recovery)).rejects.toThrow();
  }, 120_000);
});
