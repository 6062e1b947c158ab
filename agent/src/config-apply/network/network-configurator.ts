import type { Logger } from '../../logging/logger.js';
import type { SystemCommands } from '../command-runner.js';
import type { LinkHealth } from '../link-health.js';
import type { PartPhase, PartReport, PartStatusSink } from '../part-status.js';
import type { SystemRoot } from '../system-root.js';
import { desiredNetwork } from './desired-network.js';
import type { DesiredNetwork } from './desired-network.js';
import { interfaceNames } from './interface-names.js';
import { networkBackend } from './network-backend.js';
import type { NetworkBackend } from './network-backend.js';
import type { NetplanConfig } from './netplan-model.js';
import { installFiles, networkStore, readFiles, sameFiles } from './network-store.js';
import type { KnownGood, NetworkState, NetworkStore } from './network-store.js';
import { restoreInterruptedTrial } from './restore-known-good.js';
import type { RenderedFile } from './rendered-files.js';

export interface NetworkConfiguratorOptions {
  root: SystemRoot;
  deviceRoot: string;
  commands: SystemCommands;
  link: LinkHealth;
  sink: PartStatusSink;
  logger: Logger;
  now?: () => Date;
}

/**
 * Applies `spec.netplanYamlConfig` with a dead-man switch: a change is written and applied, the link is asked to
 * reconnect, and the change is kept (and becomes the known-good copy) only if a welcome arrives within the grace
 * period; otherwise the known-good copy is restored and the failure reported (NetworkConfigured False/RolledBack).
 * The state is written before the system files, so a power cut during a trial is seen at the next start (see
 * restoreInterruptedTrial, also run by `droplet restore-config` before the agent at boot).
 */
export class NetworkConfigurator {
  private readonly store: NetworkStore;
  private backend: NetworkBackend | undefined;
  private queue: Promise<void> = Promise.resolve();
  private trial: { timer: NodeJS.Timeout; unsubscribe: () => void } | undefined;
  private stopped = false;
  /** bumped by every change taken up: a trial's verdict counts only while nothing newer came */
  private epoch = 0;

  constructor(private readonly options: NetworkConfiguratorOptions) {
    this.store = networkStore(options.deviceRoot);
  }

  /** Restores a trial a restart interrupted, records the factory copy on first use, and reports. */
  async start(): Promise<void> {
    const { root, deviceRoot, commands, logger } = this.options;
    await restoreInterruptedTrial({ root, deviceRoot, commands, logger });
    const backend = await this.getBackend();
    if ((await this.store.readKnownGood()) === undefined) {
      const owned = await backend.ownedFiles();
      await this.store.writeKnownGood({
        source: 'factory',
        interfaces: [],
        contents: await readFiles(root, owned, modeOf(backend)),
      });
    }
    const state = await this.store.readState();
    this.report(state ?? FACTORY_STATE);
  }

  /** Takes the network part of a new spec; changes are applied one after another. */
  setDesired(spec: Record<string, unknown>, generation: number): Promise<void> {
    const desired = desiredNetwork(spec);
    const run = (): Promise<void> => this.converge(desired, generation);
    const result = this.queue.then(run, run);
    this.queue = result.catch((err: unknown) =>
      this.options.logger.error({ err }, 'cannot apply the network configuration'),
    );
    return result;
  }

  /** Resolves once every change taken up so far, and a trial verdict already given, has been dealt with. */
  async settled(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.queue) {
      seen = this.queue;
      await seen.catch(() => undefined);
    }
  }

  /** Ends the wait of a trial; its state stays, so the next start restores the known-good copy. */
  stop(): void {
    this.stopped = true;
    this.endTrial();
  }

  private async converge(desired: DesiredNetwork, generation: number): Promise<void> {
    if (this.stopped) return;
    this.epoch += 1;
    const state = (await this.store.readState()) ?? FACTORY_STATE;
    if (state.desiredHash === desired.hash && (state.phase !== 'trial' || this.trial !== undefined)) return;
    // a new change during a trial ends that trial: the known-good copy is still the one from before it
    this.endTrial();
    const base: NetworkState = { ...state, desiredHash: desired.hash, desiredGeneration: generation };
    delete base.trial;

    let config: NetplanConfig | undefined;
    if (desired.netplanYaml !== undefined) {
      // the netplan checker and its YAML parser are loaded by the first device that has a netplan
      const { parseNetplan } = await import('./netplan-model.js');
      const parsed = parseNetplan(desired.netplanYaml);
      if (!parsed.ok) return this.settle({ ...base, phase: 'failed', error: parsed.error });
      config = parsed.config;
    }
    const backend = await this.getBackend();
    const rendered = await backend.render(config);
    if (!rendered.ok) return this.settle({ ...base, phase: 'failed', error: rendered.error });
    const source = config === undefined ? 'factory' : 'desired';
    const applied: NetworkState = { ...base, phase: 'applied', source, appliedGeneration: generation };
    delete applied.error;
    const knownGood = await this.store.readKnownGood();
    const interfaces = interfaceNames(config);
    const owned = await backend.ownedFiles();
    const current = await readFiles(this.options.root, owned, modeOf(backend));
    if (sameFiles(current, rendered.files) && state.phase !== 'trial') {
      await this.keep(rendered.files, interfaces, source, generation);
      return this.settle(applied);
    }

    const allInterfaces = [...new Set([...interfaces, ...(knownGood?.interfaces ?? [])])];
    const failRestoringKnownGood = async (error: string): Promise<void> => {
      await this.restore(backend, knownGood, allInterfaces);
      return this.settle({ ...base, phase: 'failed', error });
    };
    if (desired.fallbackDisabled) {
      const outcome = await this.install(backend, owned, rendered.files, allInterfaces);
      if (!outcome.ok) return failRestoringKnownGood(`${outcome.error}; the previous configuration was kept`);
      await this.keep(rendered.files, interfaces, source, generation);
      return this.settle(applied);
    }

    const deadline = new Date(this.now().getTime() + desired.graceSeconds * 1000);
    await this.settle({
      ...base,
      phase: 'trial',
      trial: { generation, interfaces: allInterfaces, deadline: deadline.toISOString() },
    });
    const outcome = await this.install(backend, owned, rendered.files, allInterfaces);
    if (!outcome.ok) return failRestoringKnownGood(`${outcome.error}; the known-good configuration was restored`);
    if (outcome.note !== undefined) this.options.logger.warn(outcome.note);
    this.options.logger.info(
      { generation, graceSeconds: desired.graceSeconds },
      'applied a network configuration; keeping it only if the link to the control plane comes back',
    );
    const epoch = this.epoch;
    // confirming or rolling back waits its turn behind changes already queued, and is dropped if one superseded it
    const finish = (action: () => Promise<void>) => () => {
      if (this.epoch !== epoch) return;
      this.endTrial();
      const run = async (): Promise<void> => {
        if (this.epoch === epoch) await action();
      };
      this.queue = this.queue
        .then(run)
        .catch((err: unknown) => this.options.logger.error({ err }, 'cannot end the network trial'));
    };
    const confirm = finish(async () => {
      await this.keep(rendered.files, interfaces, source, generation);
      this.options.logger.info({ generation }, 'the link came back: the network configuration is kept');
      await this.settle(applied);
    });
    const rollBack = finish(async () => {
      const restored = await this.restore(backend, await this.store.readKnownGood(), allInterfaces);
      const error =
        `the link to the control plane did not come back within ${desired.graceSeconds} s of applying generation ` +
        `${generation}; restored the known-good configuration (${describe(restored)})`;
      this.options.logger.error({ generation }, error);
      // at once: the link's backoff grew while the change kept it down, and would hold the report up to 30 s more
      this.options.link.reconnect();
      await this.settle({
        ...base,
        phase: 'rolled-back',
        source: restored?.source === 'desired' ? 'known-good' : 'factory',
        error,
      });
    });
    const unsubscribe = this.options.link.onWelcome(confirm);
    const timer = setTimeout(rollBack, deadline.getTime() - this.now().getTime());
    this.trial = { timer, unsubscribe };
    this.options.link.reconnect();
  }

  private async install(backend: NetworkBackend, owned: string[], files: RenderedFile[], interfaces: string[]) {
    await installFiles(this.options.root, owned, files);
    return backend.apply(interfaces);
  }

  /** Puts the known-good copy back (none: no Outpost files) and applies it. */
  private async restore(
    backend: NetworkBackend,
    knownGood: KnownGood | undefined,
    interfaces: string[],
  ): Promise<KnownGood | undefined> {
    const outcome = await this.install(backend, await backend.ownedFiles(), knownGood?.contents ?? [], interfaces);
    if (!outcome.ok)
      this.options.logger.error({ error: outcome.error }, 'applying the known-good network configuration failed');
    return knownGood;
  }

  private async keep(
    files: RenderedFile[],
    interfaces: string[],
    source: 'desired' | 'factory',
    generation: number,
  ): Promise<void> {
    const knownGood = await this.store.readKnownGood();
    if (knownGood !== undefined && sameFiles(knownGood.contents, files) && knownGood.source === source) return;
    await this.store.writeKnownGood({
      source,
      ...(source === 'desired' ? { generation } : {}),
      interfaces,
      contents: files,
    });
  }

  private async settle(state: NetworkState): Promise<void> {
    await this.store.writeState(state);
    this.report(state);
  }

  private report(state: NetworkState): void {
    const report: PartReport = {
      desiredGeneration: state.desiredGeneration,
      ...(state.appliedGeneration === undefined ? {} : { appliedGeneration: state.appliedGeneration }),
      source: state.source,
      phase: phaseOf(state),
    };
    this.options.sink.report('network', report);
  }

  private endTrial(): void {
    if (this.trial === undefined) return;
    clearTimeout(this.trial.timer);
    this.trial.unsubscribe();
    this.trial = undefined;
  }

  private async getBackend(): Promise<NetworkBackend> {
    this.backend ??= await networkBackend(this.options.root, this.options.commands);
    return this.backend;
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }
}

const FACTORY_STATE: NetworkState = { desiredGeneration: 0, source: 'factory', phase: 'applied' };

function phaseOf(state: NetworkState): PartPhase {
  switch (state.phase) {
    case 'applied':
      return { phase: 'applied' };
    case 'trial':
      return { phase: 'trial' };
    case 'failed':
      return { phase: 'failed', error: state.error ?? 'failed' };
    case 'rolled-back':
      return { phase: 'rolled-back', error: state.error ?? 'rolled back' };
  }
}

const modeOf = (backend: NetworkBackend) => (): number => (backend.name === 'netplan' ? 0o600 : 0o644);

const describe = (knownGood: KnownGood | undefined): string =>
  knownGood?.source === 'desired' && knownGood.generation !== undefined
    ? `generation ${knownGood.generation}`
    : 'the factory one';
