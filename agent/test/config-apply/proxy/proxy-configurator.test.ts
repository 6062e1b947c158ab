import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LinkHealth } from '../../../src/config-apply/link-health.js';
import { partCondition } from '../../../src/config-apply/part-status.js';
import type { PartReport } from '../../../src/config-apply/part-status.js';
import { ProxyConfigurator } from '../../../src/config-apply/proxy/proxy-configurator.js';
import { capturedLogger } from '../../helpers/captured-logger.js';
import { useTempDirs } from '../../helpers/temp-dir.js';

const tempDir = useTempDirs();
const SERVER = new URL('https://cp.example.com/v1/agent:connect');
const configurators: ProxyConfigurator[] = [];
afterEach(() => {
  for (const configurator of configurators.splice(0)) configurator.stop();
});

/** A link stand-in: counts reconnects, and the test says when a welcome arrives. */
function fakeLink(): LinkHealth & { reconnects: number; welcome(): void } {
  const listeners = new Set<() => void>();
  return {
    reconnects: 0,
    isConnected: () => false,
    onWelcome(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reconnect() {
      this.reconnects += 1;
    },
    welcome() {
      for (const listener of [...listeners]) listener();
    },
  };
}

async function world(graceMs = 60_000, deviceRoot?: string) {
  const root = deviceRoot ?? (await tempDir());
  const link = fakeLink();
  const reports: PartReport[] = [];
  const proxy = new ProxyConfigurator({
    deviceRoot: root,
    link,
    sink: { report: (_part, report) => reports.push(report) },
    logger: capturedLogger().logger,
    graceMs,
  });
  configurators.push(proxy);
  await proxy.start();
  const last = (): PartReport => {
    const report = reports.at(-1);
    if (report === undefined) throw new Error('nothing reported');
    return report;
  };
  const via = (): string | undefined => proxy.chooser(SERVER)?.host;
  return { proxy, link, last, via, deviceRoot: root };
}

const SPEC = { proxyConfig: { httpsProxy: 'http://proxy.lan:3128', noProxy: 'localhost' } };

describe('ProxyConfigurator', () => {
  it('tries a new proxy, and keeps it when the link comes back through it', async () => {
    const w = await world();
    expect(w.via()).toBeUndefined();
    await w.proxy.setDesired(SPEC, 4);
    expect(w.via()).toBe('proxy.lan:3128');
    expect(w.link.reconnects).toBe(1);
    expect(partCondition('proxy', w.last())).toMatchObject({
      type: 'ProxyConfigured',
      status: 'Unknown',
      reason: 'Trial',
    });

    w.link.welcome();
    await expect.poll(() => w.last().phase).toEqual({ phase: 'applied' });
    expect(w.last()).toMatchObject({ desiredGeneration: 4, appliedGeneration: 4, source: 'desired' });
    const knownGood = JSON.parse(await readFile(join(w.deviceRoot, 'config/proxy/known-good/config.json'), 'utf8'));
    expect(knownGood).toEqual({ generation: 4, content: SPEC.proxyConfig });
    expect(w.proxy.environment()).toContainEqual({ name: 'https_proxy', value: 'http://proxy.lan:3128' });
  });

  it('puts the known-good proxy back when the link does not come back within the grace period', async () => {
    const w = await world(300);
    await w.proxy.setDesired(SPEC, 4);
    w.link.welcome();
    await expect.poll(() => w.last().phase).toEqual({ phase: 'applied' });

    await w.proxy.setDesired({ proxyConfig: { httpsProxy: 'http://dead.lan:9' } }, 5);
    expect(w.via()).toBe('dead.lan:9');
    await expect.poll(() => w.last().phase.phase, { timeout: 20_000 }).toBe('rolled-back');
    expect(w.via()).toBe('proxy.lan:3128');
    expect(w.link.reconnects).toBe(3); // to try it, and to come back without it
    const report = w.last();
    expect(report).toMatchObject({ desiredGeneration: 5, appliedGeneration: 4, source: 'known-good' });
    expect(partCondition('proxy', report)).toMatchObject({
      status: 'False',
      reason: 'RolledBack',
      message: expect.stringContaining('did not come back within 0.3 s of applying proxy generation 5'),
    });
  });

  it('starts with the known-good proxy after a restart during a trial, and says so', async () => {
    const w = await world();
    await w.proxy.setDesired(SPEC, 4);
    w.proxy.stop(); // the agent stops mid-trial

    const again = await world(60_000, w.deviceRoot);
    expect(again.via()).toBeUndefined();
    expect(again.last()).toMatchObject({ source: 'factory' });
    expect(again.last().phase).toEqual({
      phase: 'rolled-back',
      error:
        'the agent restarted during the trial of proxy generation 4; the known-good proxy is in force (none: direct connections)',
    });
  });

  it('refuses a malformed proxy and keeps the one in force', async () => {
    const w = await world();
    await w.proxy.setDesired({ proxyConfig: { httpsProxy: 'socks5://proxy:1080' } }, 2);
    expect(w.via()).toBeUndefined();
    expect(w.link.reconnects).toBe(0);
    expect(partCondition('proxy', w.last())).toMatchObject({
      status: 'False',
      reason: 'Failed',
      message: expect.stringContaining('proxyConfig.httpsProxy'),
    });
  });

  it('keeps a change at once with disableNetworkConfigFallback', async () => {
    const w = await world();
    await w.proxy.setDesired({ ...SPEC, disableNetworkConfigFallback: true }, 2);
    expect(w.via()).toBe('proxy.lan:3128');
    expect(w.link.reconnects).toBe(1);
    expect(w.last()).toMatchObject({ appliedGeneration: 2, phase: { phase: 'applied' } });
  });

  it('ignores other parts of the spec', async () => {
    const w = await world();
    await w.proxy.setDesired({ osVersion: '1.0.0' }, 2);
    await w.proxy.setDesired({ osVersion: '1.0.1' }, 3);
    expect(w.link.reconnects).toBe(0);
    expect(w.last()).toMatchObject({ desiredGeneration: 2, source: 'factory', phase: { phase: 'applied' } });
  });
});
