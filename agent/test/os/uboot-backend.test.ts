import { chmod, readFile, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ubootBackend } from '../../src/os/boot/uboot-backend.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();
const originalPath = process.env['PATH'];
afterEach(() => {
  process.env['PATH'] = originalPath;
});

/**
 * Small real stand-ins for libubootenv's tools, on PATH: the environment is a `name=value` file.
 * fw_printenv prints it; fw_setenv takes `-s <script>` (lines `name value`; `name` alone deletes).
 */
async function installFwTools(dir: string, envFile: string): Promise<void> {
  const common = `const fs = require('fs'); const file = ${JSON.stringify(envFile)};
const read = () => Object.fromEntries(fs.readFileSync(file, 'utf8').split('\\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
const write = (env) => fs.writeFileSync(file, Object.entries(env).map(([k, v]) => k + '=' + v + '\\n').join(''));
fs.appendFileSync(file + '.calls', process.argv.slice(2).join(' ') + '\\n');
`;
  const printenv = `${common}for (const [k, v] of Object.entries(read())) console.log(k + '=' + v);\n`;
  const setenv = `${common}const env = read(); const args = process.argv.slice(2);
if (args[0] !== '-s') { console.error('only -s <script> is expected'); process.exit(2); }
for (const line of fs.readFileSync(args[1], 'utf8').split('\\n').filter(Boolean)) {
  const space = line.indexOf(' ');
  if (space < 0) delete env[line]; else env[line.slice(0, space)] = line.slice(space + 1);
}
write(env);
`;
  for (const [name, body] of [
    ['fw_printenv', printenv],
    ['fw_setenv', setenv],
  ] as const) {
    await writeFile(join(dir, name), `#!/usr/bin/env node\n${body}`);
    await chmod(join(dir, name), 0o755);
  }
  process.env['PATH'] = `${dir}${delimiter}${originalPath ?? ''}`;
}

async function device(env: string, cmdline: string) {
  const dir = await tempDir();
  const envFile = join(dir, 'uboot.env');
  await writeFile(envFile, env);
  await installFwTools(dir, envFile);
  const cmdlineFile = join(dir, 'cmdline');
  await writeFile(cmdlineFile, cmdline);
  const osVersionFile = join(dir, 'os-version');
  await writeFile(osVersionFile, '1.0.0\n');
  const backend = ubootBackend({ cmdlineFile, osVersionFile, bootId: async () => 'boot-1', bootTimeMs: () => 0 });
  const variables = async (): Promise<Record<string, string>> =>
    Object.fromEntries(
      (await readFile(envFile, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
  const calls = async (): Promise<string[]> => (await readFile(`${envFile}.calls`, 'utf8')).trim().split('\n');
  return { backend, variables, calls, cmdlineFile, envFile };
}

describe('the uboot boot backend (fw_printenv / fw_setenv stand-ins on PATH)', () => {
  it('reads a factory environment', async () => {
    const { backend } = await device('bootcmd=run distro_bootcmd\nboot_part=A\nbootlimit=1\n', 'ab.slot=A\n');
    const state = await backend.readState();
    expect(state).toMatchObject({ runningSlot: 'A', activeSlot: 'A', bootId: 'boot-1' });
    expect(state.trySlot).toBeUndefined();
    expect(state.env).toMatchObject({ bootcmd: 'run distro_bootcmd', boot_part: 'A' });
    expect(await backend.runningVersion()).toBe('1.0.0');
  });

  it('tries a slot in one environment write, survives the trial boot, commits', async () => {
    const { backend, variables, calls, cmdlineFile, envFile } = await device(
      'boot_part=A\nbootlimit=1\nlast_failed=B\n',
      'quiet\n',
    );
    await backend.resetTry();
    await backend.tryOnce('B');
    expect(await variables()).toMatchObject({
      active_slot: 'A',
      boot_part: 'B',
      upgrade_available: '1',
      bootcount: '0',
      bootlimit: '1',
    });
    expect((await variables())['last_failed']).toBeUndefined();
    expect((await calls()).filter((c) => c.startsWith('-s'))).toHaveLength(2);
    // before the reboot (no ab.slot= on this kernel command line) the active slot still runs
    expect(await backend.readState()).toMatchObject({ runningSlot: 'A', activeSlot: 'A', trySlot: 'B' });

    // U-Boot boots B and counts the boot
    await writeFile(envFile, (await readFile(envFile, 'utf8')).replace('bootcount=0', 'bootcount=1'));
    expect(await backend.readState()).toMatchObject({ runningSlot: 'B', activeSlot: 'A' });
    await writeFile(cmdlineFile, 'ab.slot=B\n');
    expect(await backend.readState()).toMatchObject({ runningSlot: 'B', activeSlot: 'A' });

    await backend.commit('B');
    expect(await variables()).toMatchObject({
      active_slot: 'B',
      boot_part: 'B',
      upgrade_available: '0',
      bootcount: '0',
    });
    expect(await backend.readState()).toMatchObject({ runningSlot: 'B', activeSlot: 'B' });
  });

  it("sees the fallback U-Boot's altbootcmd recorded", async () => {
    const { backend } = await device(
      'active_slot=A\nboot_part=A\nupgrade_available=0\nbootcount=0\nlast_failed=B\n',
      'ab.slot=A\n',
    );
    const state = await backend.readState();
    expect(state).toMatchObject({ runningSlot: 'A', activeSlot: 'A', lastFailed: 'B' });
    expect(state.trySlot).toBeUndefined();
  });

  it('resetTry returns to the active slot', async () => {
    const { backend, variables } = await device(
      'active_slot=A\nboot_part=B\nupgrade_available=1\nbootcount=0\n',
      'ab.slot=A\n',
    );
    await backend.resetTry();
    expect(await variables()).toMatchObject({ boot_part: 'A', upgrade_available: '0', bootcount: '0' });
    expect((await backend.readState()).trySlot).toBeUndefined();
  });
});
