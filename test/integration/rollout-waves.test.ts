/**
 * Issue 17 acceptance: label-waves spreads the early wave across every site; --dry-run writes nothing; 30
 * simulated devices in three waves converge in order; a re-run skips the waves already done.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import type { Device } from '@outpost/shared';
import { TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import { publishSimulatedVersion } from '../../scripts/sim-fleet/server-setup.js';
import { eventsOf, milestones, startRolloutBench, rolloutCommand } from './rollout-fixture.js';
import type { RolloutBench } from './rollout-fixture.js';

const SITES = ['berlin', 'oslo', 'lyon'];
let bench: RolloutBench;
// the version the rollout test rolled out: a CI retry of it rolls out a newer one (the devices already run the first)
let rolledOut = '1.1.0';

beforeAll(async () => {
  bench = await startRolloutBench(
    'waves',
    Array.from({ length: 30 }, (_, i) => ({ id: `dev-${i}`, labels: { site: SITES[i % 3]! } })),
  );
}, 120_000);
afterAll(async () => bench?.dispose());

async function devices(): Promise<Device[]> {
  const out: Device[] = [];
  for await (const d of bench.server.admin.listAll<Device>(bench.parent, 'devices', { pageSize: 1000 })) out.push(d);
  return out;
}
const waveOf = (d: Device): string | undefined =>
  Object.keys(d.metadata?.labels ?? {})
    .find((k) => k.startsWith('wave:'))
    ?.slice('wave:'.length);

/** Removes the wave:<name> labels a failed first attempt of the labelling test may have written. */
async function removeWaveLabels(): Promise<void> {
  for (const d of (await devices()).filter(waveOf)) {
    const labels = Object.fromEntries(Object.entries(d.metadata?.labels ?? {}).filter(([k]) => !k.startsWith('wave:')));
    await bench.server.admin.update({ name: d.name, metadata: { labels } }, { updateMask: 'metadata.labels' });
  }
}

/** 1.1.0 on a test's first attempt, 1.1.N on its Nth retry, published for the simulated devices. */
async function versionOfAttempt({ task }: Pick<TestContext, 'task'>): Promise<string> {
  const version = `1.1.${task.result?.retryCount ?? 0}`;
  const sim = { client: bench.server.admin, serverUrl: bench.server.url, apiKey: TEST_ADMIN_KEY };
  await publishSimulatedVersion(sim, 'simulated', version);
  return version;
}

describe('rollouts in waves', () => {
  it('label-waves prints its plan, writes wave:<name> labels and spreads the early wave across every site', async () => {
    await removeWaveLabels();
    const args = [
      'devices',
      'label-waves',
      '--parent',
      bench.parent,
      '--canary',
      '3',
      '--early',
      '20%',
      '--spread-by',
      'site',
    ];
    const dry = await bench.cli([...args, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/WAVE\s+DEVICES\s+TO LABEL/);
    expect(dry.stdout).toMatch(/dry run: nothing written/);
    expect((await devices()).filter(waveOf)).toEqual([]);

    const result = await bench.cli([...args, '--seed', 'acceptance']);
    expect(result.code, result.stderr).toBe(0);
    const all = await devices();
    const wave = (name: string) => all.filter((d) => waveOf(d) === name);
    expect(wave('canary')).toHaveLength(3);
    expect(wave('early')).toHaveLength(6);
    expect(wave('main')).toHaveLength(21);
    // the label key is wave:<name> with an empty value
    expect(wave('early').every((d) => d.metadata?.labels?.['wave:early'] === '')).toBe(true);
    expect(new Set(wave('early').map((d) => d.metadata?.labels?.['site']))).toEqual(new Set(SITES));
    // run again: nothing to change
    const again = await bench.cli([...args, '--seed', 'acceptance', '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { changes: unknown[] }).changes).toEqual([]);
  }, 60_000);

  it('--dry-run prints the preflight of every wave and writes nothing', async () => {
    const result = await bench.cli(rolloutCommand(bench, '1.1.0', '--dry-run', '-o', 'json'));
    expect(result.code, result.stderr).toBe(0);
    const [preflight, ...rest] = eventsOf(result.stdout);
    expect(rest).toEqual([]);
    expect(preflight).toMatchObject({
      event: 'preflight',
      version: '1.1.0',
      waves: [
        { wave: 'canary', total: 3, toWrite: 3, refused: [], offline: [] },
        { wave: 'early', total: 6, toWrite: 6 },
        { wave: 'main', total: 21, toWrite: 21 },
      ],
    });
    expect((await devices()).filter((d) => d.spec?.osVersion !== undefined)).toEqual([]);
  }, 60_000);

  it('rolls 1.1.0 out wave after wave, each wave written only once the one before is through', async (context) => {
    rolledOut = await versionOfAttempt(context);
    const result = await bench.cli(rolloutCommand(bench, rolledOut, '--yes', '-o', 'json'));
    expect(result.code, result.stderr).toBe(0);
    const events = eventsOf(result.stdout);
    expect(milestones(events)).toEqual([
      'waveStarted canary',
      'written canary',
      'promoted canary',
      'waveStarted early',
      'written early',
      'promoted early',
      'waveStarted main',
      'written main',
      'promoted main',
      'completed',
    ]);
    expect(events.find((e) => e['event'] === 'promoted' && e['wave'] === 'main')).toMatchObject({
      counts: { total: 21, done: 21, failed: 0, offline: 0, inFlight: 0, notTargeted: 0 },
    });
    const progress = events.filter((e) => e['event'] === 'progress');
    expect(progress.length).toBeGreaterThan(3);
    for (const d of await devices()) expect(d.status?.deviceInfo?.osVersion, d.name).toBe(rolledOut);
  }, 120_000);

  it('rollout-status counts per wave, and a re-run skips the waves already done', async () => {
    const status = await bench.cli([
      'devices',
      'rollout-status',
      '--parent',
      bench.parent,
      '--version',
      rolledOut,
      '--waves',
      'canary,early,main',
      '-o',
      'json',
    ]);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual([
      { wave: 'canary', version: rolledOut, notTargeted: 0, inFlight: 0, done: 3, failed: 0, offline: 0, pending: 0 },
      { wave: 'early', version: rolledOut, notTargeted: 0, inFlight: 0, done: 6, failed: 0, offline: 0, pending: 0 },
      { wave: 'main', version: rolledOut, notTargeted: 0, inFlight: 0, done: 21, failed: 0, offline: 0, pending: 0 },
    ]);
    const again = await bench.cli(rolloutCommand(bench, rolledOut, '--yes'));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/wave canary: already done \(3\/3 done/);
    expect(again.stdout).toMatch(/wave main: already done \(21\/21 done/);
    expect(again.stdout).toContain(`rollout of ${rolledOut} complete`);
  }, 60_000);
});
