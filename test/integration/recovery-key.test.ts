/**
 * Issue 20, the recovery key of an encrypted device: `outpost devices provision --encrypted` makes one, shows it
 * once (or writes it only where --recovery-key-file says), and leaves a copy in {device_root}/config/ that the
 * real droplet process enrols as a second key slot and then deletes. The device here is a simulated one (file
 * boot backend, simulated TPM under sim-tpm/, whose key slots are sim-tpm/keyslots.json).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@outpost/shared';
import { deviceProcessSuite } from './helpers/device-process-suite.js';
import { perAttempt } from './helpers/per-attempt.js';
import { DROPLET, runCli, startProcess } from './helpers/processes.js';
import type { RunningProcess } from './helpers/processes.js';

const parent = 'projects/crypt/regions/eu';
const RECOVERY_KEY = /(?:[cbdefghijklnrtuv]{8}-){7}[cbdefghijklnrtuv]{8}/;
const suite = deviceProcessSuite('outpost-crypt-device-');
const { agents, newRoot, cliEnv } = suite;
const provision = (name: string, root: string, ...extra: string[]) =>
  runCli(
    ['devices', 'provision', `${parent}/devices/${name}`, '--device-root', root, '--boot-backend', 'file', ...extra],
    cliEnv(),
  );

async function until(what: string, check: () => boolean, agent: RunningProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (agent.child.exitCode !== null) throw new Error(`the agent exited before ${what}:\n${agent.output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; agent output:\n${agent.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('outpost devices provision --encrypted: the recovery key', () => {
  it('is shown once, left for the agent, and enrolled by the agent as a second key slot whose copy it deletes', async (context) => {
    const root = newRoot();
    const provisioned = await provision(perAttempt(context, 'shown'), root, '--encrypted');
    expect(provisioned.code, provisioned.stderr).toBe(0);
    const shown = RECOVERY_KEY.exec(provisioned.stdout)?.[0];
    expect(shown, provisioned.stdout).toBeDefined();
    expect(provisioned.stdout.split(shown!).length - 1, 'printed exactly once').toBe(1);
    const deviceCopy = join(root, 'config', 'recovery-key');
    expect(readFileSync(deviceCopy, 'utf8')).toBe(shown);
    expect(statSync(deviceCopy).mode & 0o777).toBe(0o600);
    expect(existsSync(join(root, 'sim-tpm')), 'the simulated device is encrypted').toBe(true);

    const agent = startProcess(DROPLET, ['--device-root', root, '--metrics-interval', '1', '--log-level', 'info']);
    agents.push(agent);
    const keyslots = join(root, 'sim-tpm', 'keyslots.json');
    // the agent removes the copy, then logs the enrolment: the wait is for the log line too
    const enrolled = /enrolled the recovery key made at provisioning/;
    await until(
      'the recovery key slot',
      () => existsSync(keyslots) && !existsSync(deviceCopy) && enrolled.test(agent.output()),
      agent,
    );
    expect(JSON.parse(readFileSync(keyslots, 'utf8'))).toEqual({
      '1': createHash('sha256').update(shown!).digest('hex'),
    });
  }, 120_000);

  it('goes only into --recovery-key-file (mode 0600) when given, never to the terminal', async (context) => {
    const root = newRoot();
    const keyFile = join(newRoot(), 'operator', 'shown-nowhere.key');
    const provisioned = await provision(
      perAttempt(context, 'filed'),
      root,
      '--encrypted',
      '--recovery-key-file',
      keyFile,
    );
    expect(provisioned.code, provisioned.stderr).toBe(0);
    const key = readFileSync(keyFile, 'utf8');
    expect(key).toMatch(new RegExp(`^${RECOVERY_KEY.source}$`));
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(provisioned.stdout + provisioned.stderr).not.toContain(key);
    expect(readFileSync(join(root, 'config', 'recovery-key'), 'utf8')).toBe(key);
  }, 120_000);

  it('refuses --recovery-key-file without --encrypted, over an existing file, and --encrypted with boot backend none; nothing is created', async () => {
    const root = newRoot();
    const existing = join(root, 'existing.key');
    const cases: string[][] = [
      ['--recovery-key-file', join(root, 'k')],
      ['--encrypted', '--recovery-key-file', existing],
    ];
    writeFileSync(existing, 'keep me');
    for (const [index, extra] of cases.entries()) {
      const refused = await provision(`refused-${index}`, root, ...extra);
      expect(refused.code, refused.stdout).not.toBe(0);
      expect(refused.stderr).toMatch(/needs --encrypted|exists: the recovery key goes into a new file/);
    }
    const none = await runCli(
      [
        'devices',
        'provision',
        `${parent}/devices/refused-2`,
        '--device-root',
        root,
        '--boot-backend',
        'none',
        '--encrypted',
      ],
      cliEnv(),
    );
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/boot backend none the agent leaves encryption alone/);
    expect(readFileSync(existing, 'utf8')).toBe('keep me');
    expect(existsSync(join(root, 'config'))).toBe(false);
    for (const name of ['refused-0', 'refused-1', 'refused-2']) {
      const err = await suite.server.admin.get(`${parent}/devices/${name}`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
    }
  }, 120_000);
});
