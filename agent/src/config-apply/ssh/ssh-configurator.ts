import type { Logger } from '../../logging/logger.js';
import type { SystemCommands } from '../command-runner.js';
import { ChangeQueue } from '../change-queue.js';
import { FACTORY_PART_STATE, changeBase, partReportOf, partStore, takeUpPartState } from '../part-store.js';
import type { PartState, PartStore } from '../part-store.js';
import type { PartStatusSink } from '../part-status.js';
import { SYSTEMCTL_PATHS, executableUnder, putSystemFile, readSystemFile } from '../system-file.js';
import type { SystemRoot } from '../system-root.js';
import { desiredSsh } from './desired-ssh.js';
import type { SshConfig } from './desired-ssh.js';
import { SSHD_DROP_IN, authorizedKeysPath, renderAuthorizedKeys, renderSshdDropIn } from './render-ssh.js';

/** Where sshd may be installed (it is often not on a non-root PATH). */
const SSHD_PATHS = ['/usr/sbin/sshd', '/usr/bin/sshd', '/sbin/sshd'];

export interface SshConfiguratorOptions {
  root: SystemRoot;
  deviceRoot: string;
  commands: SystemCommands;
  sink: PartStatusSink;
  logger: Logger;
  /** whose logins the authorized keys open (default root) */
  user?: string;
  /** the SSH server's systemd unit (default `ssh`, Debian's; `sshd` elsewhere) */
  unit?: string;
  /** whether `sshd -t` can be asked; default: sshdAvailability(root) */
  sshd?: SshdAvailability;
}

/** The sshd to check a configuration with, or why none is asked. */
export type SshdAvailability = { path: string } | { notAsked: string };

/** sshd can be asked only on the real system (root `/`) where it is installed. */
export async function sshdAvailability(root: SystemRoot): Promise<SshdAvailability> {
  if (!root.isRealRoot) return { notAsked: `the system root is ${root.root}` };
  const path = await executableUnder(root, SSHD_PATHS);
  return path === undefined ? { notAsked: 'it is not installed' } : { path };
}

/**
 * Applies `spec.sshConfig`: the sshd drop-in (port, password and key login, allow- and deny-lists) and the authorized
 * keys of the configured user, checked with `sshd -t` before sshd reloads where sshd is installed and the system root
 * is `/`; a drop-in sshd refuses is taken back (the previous one stays) and reported as SshConfigured False/Failed.
 * The SSH server is stopped and disabled, or enabled and started, through systemctl.
 */
export class SshConfigurator {
  private readonly store: PartStore;
  private readonly queue: ChangeQueue;

  constructor(private readonly options: SshConfiguratorOptions) {
    this.store = partStore(options.deviceRoot, 'ssh');
    this.queue = new ChangeQueue((err) => options.logger.error({ err }, 'cannot apply the SSH configuration'));
  }

  /** Reports the state of the last run; one a restart interrupted is applied again by the next spec. */
  async start(): Promise<void> {
    const state = await takeUpPartState(this.store);
    this.options.sink.report('ssh', partReportOf(state));
  }

  /** Takes the SSH part of a new spec; changes are applied one after another. */
  setDesired(spec: Record<string, unknown>, generation: number): Promise<void> {
    return this.queue.run(() => this.converge(spec, generation));
  }

  private async converge(spec: Record<string, unknown>, generation: number): Promise<void> {
    const desired = desiredSsh(spec);
    const state = (await this.store.readState()) ?? FACTORY_PART_STATE;
    if (state.desiredHash === desired.hash) return;
    const base = changeBase(state, desired.hash, generation);
    if (!desired.ok) return this.settle({ ...base, phase: 'failed', error: desired.error });
    await this.settle({ ...base, phase: 'applying' });

    const { root } = this.options;
    const config = desired.config;
    const previousDropIn = await readSystemFile(root, SSHD_DROP_IN);
    await putSystemFile(root, SSHD_DROP_IN, config === undefined ? undefined : renderSshdDropIn(config));
    const check = await this.checkWithSshd();
    if (!check.ok) {
      await putSystemFile(root, SSHD_DROP_IN, previousDropIn);
      const inForce = state.source === 'desired' ? 'known-good' : state.source;
      const error = `sshd refused the configuration (the previous one stays): ${check.error}`;
      this.options.logger.error({ generation }, error);
      return this.settle({ ...base, phase: 'failed', source: inForce, error });
    }
    const keys = config?.sshAuthorized ?? [];
    await putSystemFile(
      root,
      authorizedKeysPath(this.user),
      keys.length === 0 ? undefined : renderAuthorizedKeys(keys),
    );

    const previous = (await this.store.readKnownGood())?.content as SshConfig | undefined;
    const server = await this.convergeServer(config, previous?.disableSshServer === true);
    if ('error' in server) {
      return this.settle({
        ...base,
        phase: 'failed',
        source: config === undefined ? 'factory' : 'desired',
        error: server.error,
      });
    }
    await this.store.writeKnownGood(config === undefined ? undefined : { generation, content: config });
    const applied: PartState = {
      ...base,
      phase: 'applied',
      source: config === undefined ? 'factory' : 'desired',
    };
    const notes = [check.note, server.note].filter((note) => note !== undefined);
    if (notes.length > 0) applied.note = notes.join('; ');
    if (config === undefined) delete applied.appliedGeneration;
    else applied.appliedGeneration = generation;
    this.options.logger.info({ generation }, 'applied the SSH configuration');
    return this.settle(applied);
  }

  /** `sshd -t` where it can be asked; otherwise the agent's own check stands, and the note says so. */
  private async checkWithSshd(): Promise<{ ok: true; note?: string } | { ok: false; error: string }> {
    const sshd = this.options.sshd ?? (await sshdAvailability(this.options.root));
    if ('notAsked' in sshd)
      return { ok: true, note: `sshd was not asked: ${sshd.notAsked}; checked by the agent only` };
    const result = await this.options.commands.run([sshd.path, '-t']);
    if (result.exitCode === 0) return { ok: true };
    return {
      ok: false,
      error: (result.stderr.trim() || result.stdout.trim() || `exit code ${result.exitCode}`).slice(0, 2000),
    };
  }

  /**
   * Off: `systemctl disable --now`. On: `enable --now` when the spec says so or Outpost turned it off before, then
   * `try-reload-or-restart` so a running sshd reads the drop-in. Without systemctl under the system root, nothing
   * is run and the note says so.
   */
  private async convergeServer(
    config: SshConfig | undefined,
    disabledBefore: boolean,
  ): Promise<{ note?: string } | { error: string }> {
    const systemctl = await executableUnder(this.options.root, SYSTEMCTL_PATHS);
    if (systemctl === undefined) return { note: 'systemctl was not run: it is not installed under the system root' };
    const unit = this.options.unit ?? 'ssh';
    const steps: string[][] = [];
    if (config?.disableSshServer === true) {
      steps.push([systemctl, 'disable', '--now', unit]);
    } else {
      if (config?.disableSshServer === false || disabledBefore) steps.push([systemctl, 'enable', '--now', unit]);
      steps.push([systemctl, 'try-reload-or-restart', unit]);
    }
    for (const argv of steps) {
      const result = await this.options.commands.run(argv);
      if (result.exitCode !== 0) {
        return {
          error: `systemctl ${argv.slice(1).join(' ')} failed (exit code ${result.exitCode}): ${result.stderr.trim().slice(0, 2000)}`,
        };
      }
    }
    return {};
  }

  private get user(): string {
    return this.options.user ?? 'root';
  }

  private async settle(state: PartState): Promise<void> {
    await this.store.writeState(state);
    this.options.sink.report('ssh', partReportOf(state));
  }
}
