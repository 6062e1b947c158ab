import type { Logger } from '../../logging/logger.js';
import type { SystemCommands } from '../command-runner.js';
import { ChangeQueue } from '../change-queue.js';
import { FACTORY_PART_STATE, changeBase, partReportOf, partStore, takeUpPartState } from '../part-store.js';
import type { PartState, PartStore } from '../part-store.js';
import type { PartStatusSink } from '../part-status.js';
import { SYSTEMCTL_PATHS, executableUnder, putSystemFile, readSystemFile } from '../system-file.js';
import type { SystemRoot } from '../system-root.js';
import { desiredLogging } from './desired-logging.js';
import type { LoggingConfig } from './desired-logging.js';
import { JOURNALD_DROP_IN, renderJournaldDropIn } from './render-journald.js';

export interface LoggingConfiguratorOptions {
  root: SystemRoot;
  deviceRoot: string;
  commands: SystemCommands;
  sink: PartStatusSink;
  /** the agent's logger: its level follows loggingConfig.agentLogLevel, else the level it had (--log-level) */
  logger: Logger;
}

/**
 * Applies `spec.loggingConfig`: journald's limits as a drop-in (then `systemctl restart systemd-journald` where the
 * drop-in changed), and the agent's own log level, live.
 */
export class LoggingConfigurator {
  private readonly store: PartStore;
  private readonly startLevel: string;
  private readonly queue: ChangeQueue;

  constructor(private readonly options: LoggingConfiguratorOptions) {
    this.store = partStore(options.deviceRoot, 'logging');
    this.startLevel = options.logger.level;
    this.queue = new ChangeQueue((err) => options.logger.error({ err }, 'cannot apply the logging configuration'));
  }

  /** Sets the agent's level from the configuration in force and reports the state of the last run. */
  async start(): Promise<void> {
    const state = await takeUpPartState(this.store);
    const inForce = (await this.store.readKnownGood())?.content as LoggingConfig | undefined;
    this.setAgentLevel(inForce);
    this.options.sink.report('logging', partReportOf(state));
  }

  /** Takes the logging part of a new spec; changes are applied one after another. */
  setDesired(spec: Record<string, unknown>, generation: number): Promise<void> {
    return this.queue.run(() => this.converge(spec, generation));
  }

  private async converge(spec: Record<string, unknown>, generation: number): Promise<void> {
    const desired = desiredLogging(spec);
    const state = (await this.store.readState()) ?? FACTORY_PART_STATE;
    if (state.desiredHash === desired.hash) return;
    const base = changeBase(state, desired.hash, generation);
    if (!desired.ok) return this.settle({ ...base, phase: 'failed', error: desired.error });
    await this.settle({ ...base, phase: 'applying' });

    const { config } = desired;
    const source = config === undefined ? 'factory' : 'desired';
    const journald = await this.applyJournald(renderJournaldDropIn(config));
    if ('error' in journald) {
      const inForce = state.source === 'desired' ? 'known-good' : state.source;
      return this.settle({ ...base, phase: 'failed', source: inForce, error: journald.error });
    }
    this.setAgentLevel(config);
    await this.store.writeKnownGood(config === undefined ? undefined : { generation, content: config });
    const applied: PartState = { ...base, phase: 'applied', source };
    if (journald.note !== undefined) applied.note = journald.note;
    if (config === undefined) delete applied.appliedGeneration;
    else applied.appliedGeneration = generation;
    this.options.logger.info({ generation, level: this.options.logger.level }, 'applied the logging configuration');
    return this.settle(applied);
  }

  /** Writes the drop-in and restarts journald when it changed (journald re-reads its configuration only then). */
  private async applyJournald(dropIn: string | undefined): Promise<{ note?: string } | { error: string }> {
    const { root, commands } = this.options;
    const previous = await readSystemFile(root, JOURNALD_DROP_IN);
    if (previous === dropIn) return {};
    await putSystemFile(root, JOURNALD_DROP_IN, dropIn);
    const systemctl = await executableUnder(root, SYSTEMCTL_PATHS);
    if (systemctl === undefined) return { note: 'journald was not restarted: no systemctl under the system root' };
    const restart = ['restart', 'systemd-journald'];
    const result = await commands.run([systemctl, ...restart]);
    if (result.exitCode === 0) return {};
    // journald may be down now: it gets the configuration it ran with back
    await putSystemFile(root, JOURNALD_DROP_IN, previous);
    await commands.run([systemctl, ...restart]);
    return {
      error:
        `systemctl restart systemd-journald failed (exit code ${result.exitCode}): ${result.stderr.trim().slice(0, 2000)}; ` +
        'the previous journald configuration was put back',
    };
  }

  private setAgentLevel(config: LoggingConfig | undefined): void {
    const level = config?.agentLogLevel ?? this.startLevel;
    if (this.options.logger.level === level) return;
    this.options.logger.info({ level }, 'the agent log level changes');
    this.options.logger.level = level;
  }

  private async settle(state: PartState): Promise<void> {
    await this.store.writeState(state);
    this.options.sink.report('logging', partReportOf(state));
  }
}
