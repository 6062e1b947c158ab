import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../agent/src/logging/logger.js';
import { MemoryDevice, memoryBackend } from '../../agent/src/os/boot/memory-backend.js';
import type { BootBackend } from '../../agent/src/os/boot/boot-backend.js';
import { isTrialBoot } from '../../agent/src/os/boot/boot-backend.js';
import type { ImageFetcher } from '../../agent/src/os/download/image-fetcher.js';
import { memoryOsProgressStore } from '../../agent/src/os/memory-progress.js';
import type { OsProgressStore } from '../../agent/src/os/os-progress.js';
import type { ConnectGate } from './connect-gate.js';
import { SimAgent } from './sim-agent.js';
import type { SimDeviceSpec } from './index.js';

/** How long after committing an upgrade a `failHealthAfterUpgrade` device's check turns failing. */
export const HEALTH_REGRESSION_DELAY_MS = 500;

export interface SimDeviceContext {
  server: string;
  rebootMs: number;
  fetchImage: ImageFetcher;
  gate: ConnectGate;
  logger: Logger;
  /** a power cycle failed (no slot boots, an agent that cannot start) */
  onError: (message: string) => void;
}

/**
 * One simulated device: its in-memory machine (bootloader, slots, OS progress) lives as long as the fleet; an agent
 * runs while it is powered on. A reboot asked for by the agent stops that agent, waits `rebootMs` (again for each
 * boot that fails), and starts a new one on the slot the bootloader picks. Offline means powered off.
 */
export class SimDevice {
  private readonly machine: MemoryDevice;
  private readonly backend: BootBackend;
  private readonly store: OsProgressStore = memoryOsProgressStore();
  private agent: SimAgent | undefined;
  private wantOnline: boolean;
  private stopped = false;
  private readonly cancel = new AbortController();
  /** power changes happen one after the other */
  private power: Promise<void> = Promise.resolve();
  private healthTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly spec: SimDeviceSpec,
    private readonly context: SimDeviceContext,
  ) {
    this.machine = new MemoryDevice({
      factoryVersion: spec.factoryVersion,
      bootable: (_slot, version) => spec.failBoot !== true || version === spec.factoryVersion,
    });
    this.backend = this.watchCommits(memoryBackend(this.machine));
    this.wantOnline = spec.offline !== true;
  }

  /** the version of the running slot; while off, of the slot it boots next time */
  get runningVersion(): string | undefined {
    const boot = this.machine.boot;
    return this.machine.slotVersion(boot?.slot ?? this.machine.bootloader.activeSlot);
  }

  /** Powers on when it should be online. */
  start(): Promise<void> {
    return this.enqueue(() => (this.wantOnline ? this.powerOn(0) : Promise.resolve()));
  }

  setOnline(online: boolean): Promise<void> {
    this.wantOnline = online;
    return this.enqueue(async () => {
      if (online && this.agent === undefined) await this.powerOn(0);
      if (!online) await this.powerOff();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel.abort();
    await this.enqueue(() => this.powerOff());
  }

  private enqueue(change: () => Promise<void>): Promise<void> {
    const next = this.power.then(change).catch((err: unknown) => {
      if (this.stopped) return;
      this.context.onError(`${this.spec.name}: ${err instanceof Error ? err.message : String(err)}`);
    });
    this.power = next;
    return next;
  }

  /** The agent's reboot: resolves at once (the executor stops itself); the cycle runs on the power queue. */
  private reboot(): Promise<void> {
    void this.enqueue(async () => {
      await this.powerOff();
      if (this.wantOnline) await this.powerOn(this.context.rebootMs);
    });
    return Promise.resolve();
  }

  private async powerOn(delayMs: number): Promise<void> {
    if (this.stopped || this.agent !== undefined) return;
    if (delayMs > 0) await sleep(delayMs, undefined, { signal: this.cancel.signal });
    const { boot, failedBoots } = this.machine.powerOn();
    // a boot that fails (a kernel panic) takes a reboot's time before the bootloader tries again
    if (failedBoots > 0) await sleep(failedBoots * this.context.rebootMs, undefined, { signal: this.cancel.signal });
    if (this.stopped) return;
    const { context, spec } = this;
    let leaveGate = (): void => {};
    const agent = new SimAgent({
      server: context.server,
      credential: async () => {
        leaveGate = await context.gate.enter();
        return spec.credential;
      },
      onWelcome: () => leaveGate(),
      bootId: boot.bootId,
      deviceType: spec.deviceType,
      backend: this.backend,
      store: this.store,
      power: { reboot: () => this.reboot(), poweroff: () => this.setOnline(false) },
      fetchImage: context.fetchImage,
      logger: context.logger,
    });
    this.agent = agent;
    agent.setHealthy(
      !this.regressed(isTrialBoot({ runningSlot: boot.slot, activeSlot: this.machine.bootloader.activeSlot })),
    );
    await agent.start();
  }

  private async powerOff(): Promise<void> {
    clearTimeout(this.healthTimer);
    const agent = this.agent;
    this.agent = undefined;
    this.machine.powerOff();
    await agent?.stop();
  }

  /** A `failHealthAfterUpgrade` device fails its check while it runs a committed version other than its factory one. */
  private regressed(trialBoot: boolean): boolean {
    return this.spec.failHealthAfterUpgrade === true && !trialBoot && this.runningVersion !== this.spec.factoryVersion;
  }

  /** The backend, telling the health check about commits. */
  private watchCommits(backend: BootBackend): BootBackend {
    return {
      ...backend,
      commit: async (slot) => {
        await backend.commit(slot);
        if (this.spec.failHealthAfterUpgrade !== true) return;
        clearTimeout(this.healthTimer);
        const agent = this.agent;
        this.healthTimer = setTimeout(() => {
          if (agent === this.agent) agent?.setHealthy(!this.regressed(false));
        }, HEALTH_REGRESSION_DELAY_MS);
      },
    };
  }
}
