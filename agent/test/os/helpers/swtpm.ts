import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** CI sets CI=true: there a test must not skip for want of a tool .ci/run installs. */
export const runsUnderCi = (): boolean => !['', '0', 'false'].includes(process.env['CI'] ?? '');

/** The tools the real TPM adapter's tests need that are missing here (empty: all present). */
export function missingTpmTools(): string[] {
  return ['swtpm', 'tpm2_createprimary', 'tpm2_pcrextend', 'cryptsetup'].filter((tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore', env: withSbin() });
      return false;
    } catch {
      return true;
    }
  });
}

/** cryptsetup lives in /usr/sbin, which a non-login PATH may lack. */
export const withSbin = (): NodeJS.ProcessEnv => ({
  ...process.env,
  PATH: `${process.env['PATH'] ?? '/usr/bin:/bin'}:/usr/sbin:/sbin`,
});

/** The value a SHA-256 PCR holds after extending `digests` (hex) from zero, as a boot would. */
export function extendedPcr(digests: readonly string[]): string {
  let value = Buffer.alloc(32);
  for (const digest of digests) {
    value = createHash('sha256').update(value).update(Buffer.from(digest, 'hex')).digest();
  }
  return value.toString('hex');
}

export const digestOf = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Debian's swtpm as a TPM 2.0 on a unix socket. `reboot` stops and restarts it on the same state folder: the
 * persistent objects stay, the PCRs start from zero (TPM2_Startup(CLEAR)), as after a power cycle.
 */
export interface SoftTpm {
  /** tpm2-tools' TCTI for it */
  readonly tcti: string;
  reboot(): Promise<void>;
  /** extends `pcr` (SHA-256 bank) with `digest` (hex), as firmware or GRUB measures */
  extend(pcr: number, digest: string): void;
  stop(): Promise<void>;
}

export async function startSwtpm(dir: string): Promise<SoftTpm> {
  const state = join(dir, 'state');
  const socket = join(dir, 'swtpm.sock');
  await mkdir(state, { recursive: true });
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const start = async (): Promise<void> => {
    // a stale socket of the previous run would look like a ready one
    await rm(socket, { force: true });
    await rm(`${socket}.ctrl`, { force: true });
    const started = spawn(
      'swtpm',
      [
        'socket',
        '--tpm2',
        '--tpmstate',
        `dir=${state}`,
        '--server',
        `type=unixio,path=${socket}`,
        '--ctrl',
        `type=unixio,path=${socket}.ctrl`,
        '--flags',
        'startup-clear',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    started.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child = started;
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    for (let attempt = 0; ; attempt++) {
      if (started.exitCode !== null) throw new Error(`swtpm exited ${started.exitCode}: ${stderr}`);
      try {
        await access(`${socket}.ctrl`);
        await access(socket);
        return;
      } catch {
        if (attempt > 600) throw new Error(`swtpm made no socket in 60 s: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };

  const stop = async (): Promise<void> => {
    if (child === undefined) return;
    child.kill('SIGTERM');
    await exited;
    child = undefined;
  };

  await start();
  const tcti = `swtpm:path=${socket}`;
  return {
    tcti,
    async reboot() {
      await stop();
      await start();
    },
    extend(pcr, digest) {
      execFileSync('tpm2_pcrextend', ['-T', tcti, `${pcr}:sha256=${digest}`], { stdio: 'pipe' });
    },
    stop,
  };
}
