import type { EnvVar } from '@outpost/shared';
import type { Logger } from '../../logging/logger.js';
import type { LinkHealth } from '../link-health.js';
import { desiredNetwork } from '../network/desired-network.js';
import { FACTORY_PART_STATE, partReportOf, partStore } from '../part-store.js';
import type { PartState, PartStore } from '../part-store.js';
import type { PartStatusSink } from '../part-status.js';
import { desiredProxy } from './desired-proxy.js';
import { proxyEnvironment } from './proxy-environment.js';
import { proxyFor } from './proxy-route.js';
import type { ProxyChooser } from './proxy-route.js';
import { NO_PROXY_SETTINGS, parseProxySettings, redactedProxy } from './proxy-settings.js';
import type { ProxySettings } from './proxy-settings.js';

export interface ProxyConfiguratorOptions {
  deviceRoot: string;
  link: LinkHealth;
  sink: PartStatusSink;
  logger: Logger;
  /** the trial's grace instead of the spec's networkConfigGraceSeconds (tests shorten it) */
  graceMs?: number;
}

/**
 * Applies `spec.proxyConfig` to the agent's own connections (the link, its challenge requests and image downloads go
 * through `chooser`) and to the workloads' environment. A change is tried like a network change: the link reconnects
 * through the new proxy and the change is kept (the known-good copy) only if a welcome arrives within the grace
 * period (`networkConfigGraceSeconds`, default 120 s); otherwise the known-good proxy is put back and the failure
 * reported (ProxyConfigured False/RolledBack). `disableNetworkConfigFallback` keeps a change without a trial.
 * A restart during a trial counts as a failed trial: the agent starts with the known-good proxy.
 */
export class ProxyConfigurator {
  private readonly store: PartStore;
  private current: ProxySettings = NO_PROXY_SETTINGS;
  private queue: Promise<void> = Promise.resolve();
  private trial: { timer: NodeJS.Timeout; unsubscribe: () => void } | undefined;
  private stopped = false;
  /** bumped by every change taken up: a trial's verdict counts only while nothing newer came */
  private epoch = 0;

  constructor(private readonly options: ProxyConfiguratorOptions) {
    this.store = partStore(options.deviceRoot, 'proxy');
  }

  /** Which proxy a connection to a target goes through now (the link asks before every attempt). */
  readonly chooser: ProxyChooser = (target) => proxyFor(this.current, target);

  /** HTTP_PROXY, HTTPS_PROXY, NO_PROXY (and lower-case) for workloads started now. */
  environment(): EnvVar[] {
    return proxyEnvironment(this.current);
  }

  /** Takes up the known-good proxy (ending a trial a restart interrupted) and reports; call before the link starts. */
  async start(): Promise<void> {
    let state = (await this.store.readState()) ?? FACTORY_PART_STATE;
    const knownGood = await this.store.readKnownGood();
    this.current = settingsOf(knownGood?.content);
    if (state.phase === 'trial') {
      const generation = state.trial?.generation ?? state.desiredGeneration;
      const error =
        `the agent restarted during the trial of proxy generation ${generation}; ` +
        `the known-good proxy is in force (${describe(knownGood?.generation)})`;
      state = { ...state, phase: 'rolled-back', source: knownGood === undefined ? 'factory' : 'known-good', error };
      delete state.trial;
      await this.store.writeState(state);
      this.options.logger.warn(error);
    }
    this.options.sink.report('proxy', partReportOf(state));
  }

  /** Takes the proxy part of a new spec; changes are applied one after another. */
  setDesired(spec: Record<string, unknown>, generation: number): Promise<void> {
    const run = (): Promise<void> => this.converge(spec, generation);
    const result = this.queue.then(run, run);
    this.queue = result.catch((err: unknown) => this.options.logger.error({ err }, 'cannot apply the proxy'));
    return result;
  }

  /** Ends the wait of a trial; its state stays, so the next start takes up the known-good proxy. */
  stop(): void {
    this.stopped = true;
    this.endTrial();
  }

  private async converge(spec: Record<string, unknown>, generation: number): Promise<void> {
    if (this.stopped) return;
    const desired = desiredProxy(spec);
    const state = (await this.store.readState()) ?? FACTORY_PART_STATE;
    if (state.desiredHash === desired.hash && (state.phase !== 'trial' || this.trial !== undefined)) return;
    this.epoch += 1;
    const knownGood = await this.store.readKnownGood();
    if (this.trial !== undefined) {
      // a new change during a trial ends it: the known-good proxy is still the one from before it
      this.endTrial();
      this.current = settingsOf(knownGood?.content);
    }
    const base: PartState = { ...state, desiredHash: desired.hash, desiredGeneration: generation };
    delete base.error;
    delete base.note;
    delete base.trial;
    if (!desired.ok) return this.settle({ ...base, phase: 'failed', error: desired.error });

    const source = desired.raw === undefined ? 'factory' : 'desired';
    const applied: PartState = { ...base, phase: 'applied', source };
    if (source === 'desired') applied.appliedGeneration = generation;
    else delete applied.appliedGeneration;
    const keep = async (): Promise<void> => {
      await this.store.writeKnownGood(source === 'desired' ? { generation, content: desired.raw } : undefined);
      await this.settle(applied);
    };

    const network = desiredNetwork(spec);
    if (sameSettings(desired.settings, this.current) || network.fallbackDisabled) {
      const changed = !sameSettings(desired.settings, this.current);
      this.current = desired.settings;
      await keep();
      if (changed) this.options.link.reconnect();
      return;
    }

    const graceMs = this.options.graceMs ?? network.graceSeconds * 1000;
    await this.settle({
      ...base,
      phase: 'trial',
      source,
      trial: { generation, deadline: new Date(Date.now() + graceMs).toISOString() },
    });
    this.current = desired.settings;
    this.options.logger.info(
      { generation, proxy: describeSettings(desired.settings), graceMs },
      'the proxy changed; keeping it only if the link to the control plane comes back through it',
    );
    const epoch = this.epoch;
    // confirming or rolling back waits its turn behind changes already queued, and is dropped if one superseded it
    const finish = (action: () => Promise<void>) => () => {
      if (this.epoch !== epoch) return;
      this.endTrial();
      this.queue = this.queue
        .then(async () => {
          if (this.epoch === epoch) await action();
        })
        .catch((err: unknown) => this.options.logger.error({ err }, 'cannot end the proxy trial'));
    };
    const confirm = finish(async () => {
      this.options.logger.info({ generation }, 'the link came back: the proxy is kept');
      await keep();
    });
    const rollBack = finish(async () => {
      const previous = await this.store.readKnownGood();
      this.current = settingsOf(previous?.content);
      const error =
        `the link to the control plane did not come back within ${graceMs / 1000} s of applying proxy ` +
        `generation ${generation}; the known-good proxy is in force again (${describe(previous?.generation)})`;
      this.options.logger.error({ generation }, error);
      await this.settle({
        ...base,
        phase: 'rolled-back',
        source: previous === undefined ? 'factory' : 'known-good',
        error,
      });
      this.options.link.reconnect();
    });
    const unsubscribe = this.options.link.onWelcome(confirm);
    this.trial = { timer: setTimeout(rollBack, graceMs), unsubscribe };
    this.options.link.reconnect();
  }

  private endTrial(): void {
    if (this.trial === undefined) return;
    clearTimeout(this.trial.timer);
    this.trial.unsubscribe();
    this.trial = undefined;
  }

  private async settle(state: PartState): Promise<void> {
    await this.store.writeState(state);
    this.options.sink.report('proxy', partReportOf(state));
  }
}

/** The settings of a known-good copy (checked when it was kept); none or unreadable: no proxy. */
function settingsOf(content: unknown): ProxySettings {
  const parsed = parseProxySettings(content ?? undefined);
  return parsed.ok ? parsed.settings : NO_PROXY_SETTINGS;
}

const sameSettings = (a: ProxySettings, b: ProxySettings): boolean =>
  a.httpProxy?.href === b.httpProxy?.href &&
  a.httpsProxy?.href === b.httpsProxy?.href &&
  a.noProxy.join(',') === b.noProxy.join(',');

const describe = (generation: number | undefined): string =>
  generation === undefined ? 'none: direct connections' : `generation ${generation}`;

const describeSettings = (settings: ProxySettings): Record<string, string | undefined> => ({
  httpProxy: settings.httpProxy === undefined ? undefined : redactedProxy(settings.httpProxy),
  httpsProxy: settings.httpsProxy === undefined ? undefined : redactedProxy(settings.httpsProxy),
});
