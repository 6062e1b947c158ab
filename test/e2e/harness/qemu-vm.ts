import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Slot } from '@outpost/shared';
import { run } from './command.js';
import {
  extractPartition,
  readDataPartitionFiles,
  readEspFile,
  readGrubenvFromDisk,
  setGrubenvOnDisk,
  writeEspFile,
  writePartition,
} from './disk-access.js';
import { partitionOf } from './disk-layout.js';
import type { DiskLayout } from './disk-layout.js';
import { OVMF_FIRMWARE, RELAY_SCRIPT } from './paths.js';
import { exitOf, serialFacts, tailLines } from './serial-log.js';
import type { BootExit } from './serial-log.js';
import { SoftwareTpm } from './swtpm.js';

export interface VmOptions {
  /** names the NVMe serial and the log files */
  name: string;
  /** holds the qcow2 overlay and one serial log per boot */
  workDir: string;
  /** the raw base disk (read-only: every VM writes to its own overlay) */
  baseDisk: string;
  layout: DiskLayout;
  /** the control plane on 127.0.0.1 the guest reaches as 10.0.2.100:8080 */
  controlPlanePort: number;
  /** QEMU start to `Started droplet.service` on the serial console, unless QEMU exits before */
  bootTimeoutMs: number;
  /** more boots than this (a reboot loop) fail the VM */
  maxBoots: number;
  memoryMiB?: number;
  /** a TPM 2.0 (swtpm) whose NVRAM lives in this folder through every boot */
  tpmStateDir?: string;
  /** the data partition is LUKS2 with this volume key (readDataFiles decrypts it) */
  dataVolumeKey?: Buffer;
}

export interface BootOptions {
  /** false: droplet is not expected to start (no boot timeout; the test power-cuts the machine) */
  dropletExpected?: boolean;
}

/** One boot: one QEMU process. */
export interface Boot {
  /** 1-based */
  index: number;
  serialLog: string;
  startedAt: number;
  /** when `Started droplet.service` appeared on the console */
  dropletStartedAt?: number;
  /** false: the boot timeout does not apply */
  dropletExpected: boolean;
  exitedAt?: number;
  exit?: BootExit;
  /** the slot GRUB booted, the trial number, and the slot it fell back from, from the serial console */
  slot?: Slot;
  trial?: number;
  fellBackFrom?: Slot;
  /** grubenv as read from the disk after this boot's QEMU exited (only when the harness booted the next one) */
  grubenvAfter?: Record<string, string>;
}

const POLL_MS = 500;

/**
 * A QEMU x86_64 machine (TCG, OVMF, NVMe disk as a qcow2 overlay on the base image, slirp with
 * restrict=on and only a guestfwd to the control plane). `-no-reboot` makes every guest reboot exit
 * QEMU: `boot()` starts one QEMU process, `powerOn()` also starts the next after each reboot or kernel
 * panic, as a real machine would, until it powers off, is power-cut, or fails.
 */
export class Vm {
  readonly overlay: string;
  readonly boots: Boot[] = [];
  private process: ChildProcess | undefined;
  private exited: Promise<Boot> | undefined;
  private killed = false;
  private autoReboot = false;
  private failure: Error | undefined;
  private readonly failureListeners = new Set<(err: Error) => void>();
  private readonly bootListeners = new Set<(boot: Boot) => void>();
  private qemuOutput = '';
  private tpm: SoftwareTpm | undefined;

  private constructor(private readonly options: VmOptions) {
    this.overlay = join(options.workDir, `${options.name}.qcow2`);
  }

  /** A new machine with a fresh overlay on the base disk. */
  static async create(options: VmOptions): Promise<Vm> {
    const vm = new Vm(options);
    await run('qemu-img', ['create', '-q', '-f', 'qcow2', '-b', options.baseDisk, '-F', 'raw', vm.overlay]);
    if (options.tpmStateDir !== undefined) vm.tpm = new SoftwareTpm(options.tpmStateDir);
    return vm;
  }

  get running(): boolean {
    return this.process !== undefined;
  }

  get currentBoot(): Boot | undefined {
    return this.boots.at(-1);
  }

  /** Writes a filesystem image over the data partition (the machine must be off). */
  async writeDataPartition(imageFile: string): Promise<void> {
    this.requireOff('write the data partition');
    await writePartition(this.overlay, partitionOf(this.options.layout, 'data'), imageFile);
  }

  /** grubenv on the disk, as GRUB will read it at the next boot (the machine must be off). */
  async readGrubenv(): Promise<Record<string, string>> {
    this.requireOff('read grubenv from the disk');
    return readGrubenvFromDisk(this.overlay, partitionOf(this.options.layout, 'esp'), this.options.workDir);
  }

  /** Files of the data partition by path inside it (the machine must be off). */
  async readDataFiles(paths: readonly string[]): Promise<Record<string, string | undefined>> {
    this.requireOff('read the data partition');
    const data = partitionOf(this.options.layout, 'data');
    return readDataPartitionFiles(this.overlay, data, paths, this.options.workDir, this.options.dataVolumeKey);
  }

  /** A copy of the data partition as it is on the disk (the machine must be off). */
  async extractDataPartition(outFile: string): Promise<void> {
    this.requireOff('read the data partition');
    await extractPartition(this.overlay, partitionOf(this.options.layout, 'data'), outFile);
  }

  /** A file of the ESP by its path there (`EFI/ab/grubenv`), undefined when missing (the machine must be off). */
  async readEspFile(path: string): Promise<string | undefined> {
    this.requireOff('read the ESP');
    return readEspFile(this.overlay, partitionOf(this.options.layout, 'esp'), path, this.options.workDir);
  }

  /** Writes a file of the ESP (the machine must be off). */
  async writeEspFile(path: string, content: string): Promise<void> {
    this.requireOff('write the ESP');
    await writeEspFile(this.overlay, partitionOf(this.options.layout, 'esp'), path, content, this.options.workDir);
  }

  /** Sets grubenv variables for the next boot (the machine must be off). */
  async setGrubenv(variables: Record<string, string>): Promise<void> {
    this.requireOff('write grubenv');
    await setGrubenvOnDisk(this.overlay, partitionOf(this.options.layout, 'esp'), variables, this.options.workDir);
  }

  /**
   * `qemu-img check` of the overlay (the machine must be off): throws on corruption; leaked clusters (what
   * a SIGKILL of QEMU may leave) are harmless and reported as `leaks`.
   */
  async checkOverlay(): Promise<{ leaks: boolean }> {
    this.requireOff('check the overlay');
    const check = await run('qemu-img', ['check', '-f', 'qcow2', this.overlay], { allowFailure: true });
    // 0: clean, 3: only leaked clusters; anything else is corruption or a failed check
    if (check.code !== 0 && check.code !== 3) {
      throw new Error(`qemu-img check ${this.overlay} exited with ${check.code}:\n${check.stdout}${check.stderr}`);
    }
    return { leaks: check.code === 3 };
  }

  /** Starts the machine and keeps it running across reboots (one QEMU process per boot). */
  powerOn(): void {
    this.autoReboot = true;
    if (this.tpm === undefined) this.boot();
    else this.bootWithTpm().catch((err: unknown) => this.fail(err instanceof Error ? err : new Error(String(err))));
  }

  /** Starts one QEMU process (one boot) after a fresh swtpm, when the machine has a TPM. */
  async bootWithTpm(options: BootOptions = {}): Promise<Boot> {
    await this.tpm?.restart();
    return this.boot(options);
  }

  /** Starts one QEMU process: one boot (a machine with a TPM: bootWithTpm). */
  boot(options: BootOptions = {}): Boot {
    if (this.process !== undefined) throw new Error(`${this.options.name} is already running`);
    if (this.failure !== undefined) throw this.failure;
    const index = this.boots.length + 1;
    const boot: Boot = {
      index,
      serialLog: join(this.options.workDir, `${this.options.name}-boot-${String(index).padStart(2, '0')}.log`),
      startedAt: Date.now(),
      dropletExpected: options.dropletExpected ?? true,
    };
    writeFileSync(boot.serialLog, '');
    this.boots.push(boot);
    this.killed = false;
    this.qemuOutput = '';
    const child = spawn('qemu-system-x86_64', this.qemuArgs(boot.serialLog), { stdio: ['ignore', 'pipe', 'pipe'] });
    this.process = child;
    child.stdout?.on('data', (d: Buffer) => (this.qemuOutput += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.qemuOutput += d.toString()));
    const watchdog = setInterval(() => this.watch(boot), POLL_MS);
    this.exited = new Promise<Boot>((resolve) => {
      child.once('exit', () => {
        clearInterval(watchdog);
        this.process = undefined;
        this.onExit(boot).then(
          () => resolve(boot),
          (err: unknown) => {
            this.fail(err instanceof Error ? err : new Error(String(err)));
            resolve(boot);
          },
        );
      });
    });
    for (const listener of this.bootListeners) listener(boot);
    return boot;
  }

  /** Waits until the current QEMU process exits (a reboot, power-off, panic or power cut). */
  async waitForExit(timeoutMs = this.options.bootTimeoutMs): Promise<Boot> {
    const exited = this.exited;
    if (exited === undefined) throw new Error(`${this.options.name} was never booted`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(this.diagnosedError(`QEMU did not exit within ${Math.round(timeoutMs / 1000)} s`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits until the running boot's serial console shows `pattern`; returns the match. */
  async waitForSerial(pattern: RegExp, timeoutMs = this.options.bootTimeoutMs): Promise<RegExpExecArray> {
    const boot = this.currentBoot;
    if (boot === undefined) throw new Error(`${this.options.name} was never booted`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(existsSync(boot.serialLog) ? readFileSync(boot.serialLog, 'utf8') : '');
      if (match !== null) return match;
      if (boot.exitedAt !== undefined)
        throw this.diagnosedError(`the boot ended without ${String(pattern)} on its console`);
      if (Date.now() > deadline) {
        throw this.diagnosedError(`${String(pattern)} did not appear within ${Math.round(timeoutMs / 1000)} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Cuts the power: SIGKILL to QEMU (the guest gets no chance to flush; what it synced is on the disk). */
  async powerCut(): Promise<Boot> {
    this.autoReboot = false;
    const child = this.process;
    const exited = this.exited;
    if (child === undefined || exited === undefined) throw new Error(`${this.options.name} is not running`);
    this.killed = true;
    child.kill('SIGKILL');
    return exited;
  }

  /** Resolves with the next boot `predicate` accepts (already started ones count). */
  nextBoot(predicate: (boot: Boot) => boolean = () => true, after = 0): Promise<Boot> {
    const found = this.boots.find((b) => b.index > after && predicate(b));
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => {
      const listener = (boot: Boot): void => {
        if (boot.index > after && predicate(boot)) {
          this.bootListeners.delete(listener);
          resolve(boot);
        }
      };
      this.bootListeners.add(listener);
    });
  }

  /**
   * Ends the guest's open connections to the control plane, as a network outage would: kills their relay
   * processes (QEMU starts one per connection, `relay.mjs PORT NAME`), found by their command line.
   * Returns how many there were.
   */
  dropConnections(): number {
    const relays = processesRunning([process.execPath, RELAY_SCRIPT, ...this.relayArgs()]);
    for (const pid of relays) process.kill(pid, 'SIGTERM');
    return relays.length;
  }

  /** Registers a listener for the VM failing (boot timeout, QEMU error, reboot loop); returns its removal. */
  onFailure(listener: (err: Error) => void): () => void {
    if (this.failure !== undefined) {
      listener(this.failure);
      return () => {};
    }
    this.failureListeners.add(listener);
    return () => this.failureListeners.delete(listener);
  }

  get failed(): Error | undefined {
    return this.failure;
  }

  /** The last lines of the current boot's serial console. */
  serialTail(lines = 80): string {
    const boot = this.currentBoot;
    if (boot === undefined || !existsSync(boot.serialLog)) return '(no boot yet)';
    return tailLines(readFileSync(boot.serialLog, 'utf8'), lines);
  }

  /** An error naming the boot, with the serial console's tail. */
  diagnosedError(message: string): Error {
    const boot = this.currentBoot;
    const where = boot === undefined ? '' : ` (boot ${boot.index}, serial log ${boot.serialLog})`;
    return new Error(
      `${this.options.name}: ${message}${where}\n--- last 80 lines of the serial console ---\n${this.serialTail()}\n---`,
    );
  }

  /** Stops QEMU if it runs; removes the overlay unless OUTPOST_E2E_KEEP=1 (serial logs are kept). */
  async dispose(): Promise<void> {
    this.autoReboot = false;
    if (this.process !== undefined) await this.powerCut();
    await this.tpm?.stop();
    if (process.env['OUTPOST_E2E_KEEP'] !== '1') await rm(this.overlay, { force: true });
  }

  private qemuArgs(serialLog: string): string[] {
    const relay = `cmd:${[process.execPath, RELAY_SCRIPT, ...this.relayArgs()].join(' ')}`;
    return [
      ...['-machine', 'q35', '-accel', 'tcg', '-cpu', 'max', '-smp', '2'],
      ...['-m', String(this.options.memoryMiB ?? 1024), '-bios', OVMF_FIRMWARE],
      ...(this.tpm?.qemuArgs() ?? []),
      ...['-drive', `if=none,id=d0,file=${this.overlay},format=qcow2`],
      ...['-device', `nvme,drive=d0,serial=${this.options.name}`],
      ...['-netdev', `user,id=n0,restrict=on,guestfwd=tcp:10.0.2.100:8080-${relay}`],
      ...['-device', 'virtio-net-pci,netdev=n0'],
      ...['-display', 'none', '-vga', 'none', '-monitor', 'none', '-serial', `file:${serialLog}`, '-no-reboot'],
    ];
  }

  /** the relay's arguments: the control plane's port, and this machine's name (so its relays can be found) */
  private relayArgs(): string[] {
    return [String(this.options.controlPlanePort), this.options.name];
  }

  /** Polls the running boot's console: GRUB's choice, droplet's start, and the boot timeout. */
  private watch(boot: Boot): void {
    if (!existsSync(boot.serialLog)) return;
    const facts = serialFacts(readFileSync(boot.serialLog, 'utf8'));
    this.applyFacts(boot, facts);
    const late = Date.now() - boot.startedAt > this.options.bootTimeoutMs;
    if (boot.dropletExpected && boot.dropletStartedAt === undefined && late) {
      this.fail(
        this.diagnosedError(
          `boot timed out: droplet.service did not start within ${Math.round(this.options.bootTimeoutMs / 1000)} s`,
        ),
      );
      this.autoReboot = false;
      this.killed = true;
      this.process?.kill('SIGKILL');
    }
  }

  private applyFacts(boot: Boot, facts: ReturnType<typeof serialFacts>): void {
    if (facts.slot !== undefined) boot.slot = facts.slot;
    if (facts.trial !== undefined) boot.trial = facts.trial;
    if (facts.fellBackFrom !== undefined) boot.fellBackFrom = facts.fellBackFrom;
    if (facts.dropletStarted && boot.dropletStartedAt === undefined) boot.dropletStartedAt = Date.now();
  }

  private async onExit(boot: Boot): Promise<void> {
    const log = existsSync(boot.serialLog) ? readFileSync(boot.serialLog, 'utf8') : '';
    this.applyFacts(boot, serialFacts(log));
    boot.exitedAt = Date.now();
    boot.exit = exitOf(log, this.killed);
    if (boot.exit === 'qemu-error') {
      this.fail(this.diagnosedError(`QEMU exited unexpectedly: ${this.qemuOutput.trim() || '(no output)'}`));
      return;
    }
    if (!this.autoReboot || this.failure !== undefined) return;
    if (boot.exit !== 'reboot' && boot.exit !== 'kernel-panic') return;
    boot.grubenvAfter = await this.readGrubenv();
    if (this.boots.length >= this.options.maxBoots) {
      this.fail(this.diagnosedError(`reboot loop: ${this.boots.length} boots, more than the scenario allows`));
      return;
    }
    await this.bootWithTpm();
  }

  private fail(err: Error): void {
    if (this.failure !== undefined) return;
    this.failure = err;
    for (const listener of this.failureListeners) listener(err);
    this.failureListeners.clear();
  }

  private requireOff(what: string): void {
    if (this.process !== undefined) throw new Error(`cannot ${what} of ${this.options.name} while it runs`);
  }
}

/** Ids of the processes whose command line is exactly `argv` (from /proc). */
function processesRunning(argv: readonly string[]): number[] {
  const wanted = argv.join('\0');
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '') === wanted;
      } catch {
        return false; // it exited meanwhile
      }
    })
    .map(Number);
}
