import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A machine's TPM 2.0: Debian's swtpm, its NVRAM (persistent keys, lockout counters) in a folder that outlives
 * every boot. swtpm ends with the QEMU process it served (QEMU shuts it down on exit), so each boot gets a fresh
 * swtpm process on the same folder: a reboot or a power cut loses what a real TPM loses, its volatile state.
 */
export class SoftwareTpm {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(private readonly stateDir: string) {}

  get socket(): string {
    return join(this.stateDir, 'swtpm.sock');
  }

  /** Starts a fresh swtpm for the next boot (ending one still running) and waits for its socket. */
  async restart(): Promise<void> {
    await this.stop();
    await mkdir(this.stateDir, { recursive: true });
    await rm(this.socket, { force: true });
    const child = spawn(
      'swtpm',
      ['socket', '--tpm2', '--tpmstate', `dir=${this.stateDir}`, '--ctrl', `type=unixio,path=${this.socket}`],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    let running = true;
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    this.child = child;
    this.exited = new Promise<void>((resolve) => {
      child.once('exit', () => {
        running = false;
        resolve();
      });
      child.once('error', (err) => {
        stderr += err.message;
        running = false;
        resolve();
      });
    });
    const deadline = Date.now() + 30_000;
    while (!existsSync(this.socket)) {
      if (!running) throw new Error(`swtpm exited before its socket appeared: ${stderr.trim()}`);
      if (Date.now() > deadline) throw new Error(`swtpm made no socket ${this.socket} within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** QEMU's arguments for a TPM 2.0 (TIS interface) backed by this swtpm. */
  qemuArgs(): string[] {
    return [
      ...['-chardev', `socket,id=chrtpm,path=${this.socket}`],
      ...['-tpmdev', 'emulator,id=tpm0,chardev=chrtpm', '-device', 'tpm-tis,tpmdev=tpm0'],
    ];
  }

  /** Ends swtpm if it still runs. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await this.exited;
  }
}
