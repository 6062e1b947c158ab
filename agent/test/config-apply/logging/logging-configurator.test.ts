import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingCommands } from '../../../src/config-apply/command-runner.js';
import type { CommandResult } from '../../../src/config-apply/command-runner.js';
import { LoggingConfigurator } from '../../../src/config-apply/logging/logging-configurator.js';
import { partCondition } from '../../../src/config-apply/part-status.js';
import type { PartReport } from '../../../src/config-apply/part-status.js';
import { systemRoot } from '../../../src/config-apply/system-root.js';
import { capturedLogger } from '../../helpers/captured-logger.js';
import { useTempDirs } from '../../helpers/temp-dir.js';

const tempDir = useTempDirs();
const DROP_IN = 'etc/systemd/journald.conf.d/90-outpost.conf';

async function world(answer?: (argv: string[]) => CommandResult) {
  const rootDir = await tempDir();
  const deviceRoot = await tempDir();
  // the simulated system's systemctl: commands are recorded, never run
  await mkdir(join(rootDir, 'bin'), { recursive: true });
  await writeFile(join(rootDir, 'bin/systemctl'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const commands = recordingCommands(answer);
  const reports: PartReport[] = [];
  const log = capturedLogger();
  log.logger.level = 'info';
  const make = (): LoggingConfigurator =>
    new LoggingConfigurator({
      root: systemRoot(rootDir),
      deviceRoot,
      commands,
      sink: { report: (_part, report) => reports.push(report) },
      logger: log.logger,
    });
  const logging = make();
  await logging.start();
  const last = (): PartReport => {
    const report = reports.at(-1);
    if (report === undefined) throw new Error('nothing reported');
    return report;
  };
  const restart = [join(rootDir, 'bin/systemctl'), 'restart', 'systemd-journald'];
  return { logging, make, commands, last, log, rootDir, restart };
}

describe('LoggingConfigurator', () => {
  it("writes journald's limits as a drop-in and restarts journald", async () => {
    const w = await world();
    await w.logging.setDesired(
      { loggingConfig: { priority: 4, journalSystemMaxUse: '200M', journalRuntimeMaxUse: '32M' } },
      3,
    );
    expect(await readFile(join(w.rootDir, DROP_IN), 'utf8')).toContain(
      '[Journal]\nMaxLevelStore=4\nSystemMaxUse=200M\nRuntimeMaxUse=32M\n',
    );
    expect(w.commands.calls).toEqual([w.restart]);
    expect(w.last()).toMatchObject({ desiredGeneration: 3, appliedGeneration: 3, source: 'desired' });
    expect(partCondition('logging', w.last())).toMatchObject({ type: 'LoggingConfigured', status: 'True' });

    // only the agent's level changes: journald is left alone
    w.commands.calls.length = 0;
    await w.logging.setDesired(
      {
        loggingConfig: {
          priority: 4,
          journalSystemMaxUse: '200M',
          journalRuntimeMaxUse: '32M',
          agentLogLevel: 'debug',
        },
      },
      4,
    );
    expect(w.commands.calls).toEqual([]);
  });

  it("sets the agent's log level live, back to its own when the spec drops it, and again after a restart", async () => {
    const w = await world();
    await w.logging.setDesired({ loggingConfig: { agentLogLevel: 'debug' } }, 1);
    expect(w.log.logger.level).toBe('debug');
    expect(existsSync(join(w.rootDir, DROP_IN))).toBe(false);
    expect(w.commands.calls).toEqual([]);

    w.log.logger.level = 'info'; // a restart of the agent: its --log-level
    await w.make().start();
    expect(w.log.logger.level).toBe('debug');

    await w.logging.setDesired({}, 2);
    expect(w.log.logger.level).toBe('info');
    expect(w.last()).toMatchObject({ desiredGeneration: 2, source: 'factory', phase: { phase: 'applied' } });
  });

  it('refuses a malformed size and changes nothing', async () => {
    const w = await world();
    await w.logging.setDesired({ loggingConfig: { journalSystemMaxUse: 'lots', agentLogLevel: 'debug' } }, 5);
    expect(existsSync(join(w.rootDir, DROP_IN))).toBe(false);
    expect(w.log.logger.level).toBe('info');
    expect(partCondition('logging', w.last())).toMatchObject({
      status: 'False',
      reason: 'Failed',
      message: 'loggingConfig.journalSystemMaxUse: "lots" is not a size such as "200M" or "1G"',
    });
  });

  it('puts the previous drop-in back when journald does not restart', async () => {
    let failing = false;
    const w = await world(() =>
      failing
        ? { exitCode: 1, stdout: '', stderr: 'Job for systemd-journald.service failed.' }
        : { exitCode: 0, stdout: '', stderr: '' },
    );
    await w.logging.setDesired({ loggingConfig: { journalSystemMaxUse: '100M' } }, 1);
    const good = await readFile(join(w.rootDir, DROP_IN), 'utf8');
    failing = true;
    await w.logging.setDesired({ loggingConfig: { journalSystemMaxUse: '300M' } }, 2);
    expect(await readFile(join(w.rootDir, DROP_IN), 'utf8')).toBe(good);
    expect(w.last()).toMatchObject({ desiredGeneration: 2, appliedGeneration: 1, source: 'known-good' });
    expect(w.last().phase).toEqual({
      phase: 'failed',
      error:
        'systemctl restart systemd-journald failed (exit code 1): Job for systemd-journald.service failed.; ' +
        'the previous journald configuration was put back',
    });
  });
});
