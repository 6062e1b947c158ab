/**
 * What the `tpm2` unlock adapter costs on this host, against swtpm and a LUKS2 container in a file (issue 20):
 * the boot-time unlock (persisted primary, load, PolicyPCR + PolicyOR session, unseal, `cryptsetup open
 * --test-passphrase`) and a re-seal (unseal, create under a new PolicyOR of up to 6 branches, LUKS2 token replace).
 * Each round power-cycles swtpm and extends PCR 7 and 8 as firmware and GRUB would. Not a QEMU boot: no
 * device-mapper setup and no guest TCG slowdown (DESIGN.md has the in-guest figures of the prototype).
 *
 * Run from the repository root (root: cryptsetup; needs swtpm, tpm2-tools, cryptsetup):
 *   npx tsx scripts/tpm-prototype/unlock-cost.ts [--rounds 5]
 * One JSON line on stdout: unlock_ms_median, reseal_ms_median, each round's figures, and the 1-minute load.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { execFileCommands } from '../../agent/src/config-apply/command-runner.js';
import { tpm2Unlock } from '../../agent/src/os/unlock/tpm2-adapter.js';
import { digestOf, extendedPcr, startSwtpm, withSbin } from '../../agent/test/os/helpers/swtpm.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const rounds = Number(values.rounds);
const dir = mkdtempSync(join(tmpdir(), 'tpm-unlock-cost-'));
try {
  const device = join(dir, 'data.img');
  const key = join(dir, 'factory.key');
  writeFileSync(key, 'factory');
  execFileSync('truncate', ['-s', '20M', device]);
  const format = ['luksFormat', '--type', 'luks2', '--batch-mode', '--pbkdf', 'pbkdf2'];
  execFileSync('cryptsetup', [...format, '--pbkdf-force-iterations', '1000', '--key-file', key, device], {
    env: withSbin(),
  });
  const paths = ['normal', 'trial', 'fallback'];
  const slotPaths = (slot: string) =>
    Object.fromEntries(paths.map((path) => [path, extendedPcr([digestOf(`${slot} ${path}`)])]));
  const predictions = join(dir, 'pcr8.json');
  writeFileSync(predictions, JSON.stringify({ version: 1, pcr: 8, slots: { A: slotPaths('A'), B: slotPaths('B') } }));
  const tpm = await startSwtpm(join(dir, 'tpm'));
  try {
    const adapter = tpm2Unlock({
      commands: execFileCommands({ env: { PATH: withSbin()['PATH'] ?? '' } }),
      device,
      tcti: tpm.tcti,
      predictionsFile: predictions,
      runtimeDir: join(dir, 'run'),
      bootRecordFile: join(dir, 'run', 'unlock.json'),
      bootId: async () => 'bench',
    });
    const boot = async () => {
      await tpm.reboot();
      tpm.extend(7, digestOf('firmware'));
      tpm.extend(8, digestOf('A normal'));
    };
    const timed = async (work: () => Promise<unknown>): Promise<number> => {
      const started = process.hrtime.bigint();
      await work();
      return Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
    };
    await boot();
    await adapter.enroll(key, ['A'], 'bench');
    const unlock: number[] = [];
    const reseal: number[] = [];
    for (let round = 0; round < rounds; round++) {
      await boot();
      unlock.push(
        await timed(async () => {
          if (!(await adapter.unlockAtBoot('test')).unlocked) throw new Error('the unlock failed');
        }),
      );
      reseal.push(await timed(() => adapter.seal(round % 2 === 0 ? ['A', 'B'] : ['A'], 'bench')));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const figures = {
      bench: 'tpm2-unlock-swtpm',
      unlock_ms_median: median(unlock),
      reseal_ms_median: median(reseal),
      unlock_ms: unlock,
      reseal_ms: reseal,
      load1: Math.round(loadavg()[0]! * 10) / 10,
    };
    console.log(JSON.stringify(figures));
  } finally {
    await tpm.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
