/**
 * The rollouts and limits pages in Chromium against a real control plane: a rollout of three waves followed to the
 * end on the rollouts page (simulated devices that download, reboot and report the version; the page runs the
 * command line's rollout module), one wave at a time by "Start next wave", with the API's records asserted after
 * each; a rollout the command line runs followed on the same page, live; and on the limits page a plan request
 * filed while the page is open shown without a reload and accepted, the pools and limits with their usage bars.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { TEST_ADMIN_KEY } from '../../helpers/test-server.js';
import { rolloutCommand, startRolloutBench } from '../../../../test/integration/rollout-fixture.js';
import { publishSimulatedVersion } from '../../../../scripts/sim-fleet/server-setup.js';
import type { RolloutBench } from '../../../../test/integration/rollout-fixture.js';
import { DashboardTab, browserUnavailable, launchBrowser } from './browser-harness.js';

const unavailable = browserUnavailable();
let bench: RolloutBench;
let browser: Browser;
let tab: DashboardTab;
const page = (): Page => tab.page;
const WAVES = ['canary', 'early', 'main'] as const;

describe.skipIf(unavailable !== '')('the rollouts and limits pages in Chromium', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    bench = await startRolloutBench(
      'dash-rollout',
      WAVES.map((wave) => ({ id: `${wave}-box`, labels: { [`wave:${wave}`]: '' } })),
    );
    browser = await launchBrowser();
    tab = await DashboardTab.open(browser, bench.server.url);
    await tab.signIn(TEST_ADMIN_KEY);
  }, 180_000);
  afterAll(async () => {
    await tab?.close();
    await browser?.close();
    await bench?.dispose();
  }, 60_000);

  const desired = async (): Promise<(string | undefined)[]> =>
    Promise.all(WAVES.map(async (wave) => (await bench.device(`${wave}-box`)).spec?.osVersion));

  it('follows a rollout of three waves to the end, one wave at a time', async () => {
    await page().getByRole('link', { name: 'Rollouts' }).click();
    await page().getByLabel('Parent').fill(bench.parent);
    const version = page().getByLabel('OS version');
    await expect.poll(() => version.locator('option').allInnerTexts()).toContain('1.1.0');
    await version.selectOption('1.1.0');
    await page().getByRole('button', { name: 'Preflight' }).click();
    const status = page()
      .getByRole('status')
      .filter({ hasText: /Preflight done/ });
    await status.waitFor({ timeout: 60_000 });
    expect(await desired()).toEqual([undefined, undefined, undefined]);
    await tab.screenshots('rollouts-preflight');

    for (const [i, wave] of WAVES.entries()) {
      await page().getByRole('button', { name: 'Start next wave' }).click();
      const dialog = page().locator('dialog[open]');
      expect(await dialog.getByRole('heading').innerText()).toBe('Roll 1.1.0 out?');
      await dialog.getByRole('button', { name: 'Start' }).click();
      const done =
        i < WAVES.length - 1
          ? `The ${wave} wave is through: start the next one when you are ready.`
          : 'Completed: every wave runs 1.1.0.';
      await page().getByText(done).waitFor({ timeout: 90_000 });
      const row = page()
        .locator('section', { has: page().getByRole('heading', { name: 'Waves', exact: true }) })
        .locator('tr', { has: page().getByRole('cell', { name: wave, exact: true }) });
      // Devices, Not targeted, In flight, Done, Failed, Offline, State
      expect((await row.innerText()).split('\t').map((c) => c.trim())).toEqual([
        wave,
        '1',
        '0',
        '0',
        '1',
        '0',
        '0',
        'promoted',
      ]);
      expect(await desired()).toEqual(WAVES.map((_, j) => (j <= i ? '1.1.0' : undefined)));
      expect((await bench.device(`${wave}-box`)).status?.deviceInfo?.osVersion).toBe('1.1.0');
    }
    const running = await Promise.all(
      WAVES.map(async (w) => (await bench.device(`${w}-box`)).status?.deviceInfo?.osVersion),
    );
    expect(running).toEqual(['1.1.0', '1.1.0', '1.1.0']);
    expect(await tab.seriousAccessibilityViolations()).toEqual([]);
    expect(await tab.controlsUnreachableByKeyboard()).toEqual([]);
    await tab.screenshots('rollouts-completed');
    expect(tab.failedRequests).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });

  it('follows a rollout started elsewhere (the command line), wave by wave, live', async () => {
    await publishSimulatedVersion(
      { client: bench.server.admin, serverUrl: bench.server.url, apiKey: TEST_ADMIN_KEY },
      'simulated',
      '1.2.0',
    );
    const followed = page().locator('section', {
      has: page().getByRole('heading', { name: `Rollouts under ${bench.parent}` }),
    });
    const waveRow = (wave: string) =>
      followed.locator('[data-version="1.2.0"] tr', { has: page().getByRole('cell', { name: wave, exact: true }) });
    const cells = async (wave: string) => (await waveRow(wave).innerText()).split('\t').map((c) => c.trim());
    // 1.1.0, which every device runs now: done everywhere
    await expect
      .poll(async () => (await followed.locator('[data-version="1.1.0"]').innerText()).includes('all'))
      .toBe(true);
    const rollout = await bench.cli([...rolloutCommand(bench, '1.2.0', '--waves', 'canary', '--yes', '-o', 'json')]);
    expect(rollout.code, rollout.stderr).toBe(0);
    // wave, not targeted, in flight, done, failed, offline, pending
    await expect.poll(() => cells('canary'), { timeout: 60_000 }).toEqual(['canary', '0', '0', '1', '0', '0', '0']);
    await expect.poll(() => cells('early')).toEqual(['early', '1', '0', '0', '0', '0', '0']);
    await expect.poll(() => cells('all')).toEqual(['all', '2', '0', '1', '0', '0', '0']);
    expect((await bench.device('canary-box')).status?.deviceInfo?.osVersion).toBe('1.2.0');
    await tab.screenshots('rollouts-followed');
    expect(tab.failedRequests).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });

  it('accepts a pending plan request on the limits page; pools and limits show their usage', async () => {
    const admin = bench.server.admin;
    await admin.create('', 'organizations', { name: 'organizations/dash-corp', regions: ['eu'] });
    await admin.create('', 'projects', {
      name: 'projects/dash-shop',
      parentOrganization: 'organizations/dash-corp',
      regions: ['eu'],
    });
    const request = 'projects/dash-shop/planAssignmentRequests/more-devices';
    // the page is open before the request is filed: it shows up without a reload
    await page().getByRole('link', { name: 'Limits' }).click();
    await page().getByLabel('Organization or project').fill('organizations/dash-corp');
    await page().getByLabel('Organization or project').press('Enter');
    await page().getByText('No pending request.').waitFor();
    await admin.create('projects/dash-shop', 'planAssignmentRequests', {
      name: request,
      service: 'services/devices.outpost',
      request: {
        assign: {
          plan: 'services/devices.outpost/plans/project-small',
          extensions: [{ resource: 'services/devices.outpost/resources/devices', value: 500, region: 'eu' }],
        },
      },
    });
    expect((await admin.get<{ status?: { conclusion?: string } }>(request)).status?.conclusion).toBe('PENDING');
    const row = page().locator('tr', { hasText: request });
    await row.waitFor({ timeout: 30_000 }).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await page().locator('main').innerText()}`);
    });
    expect(await row.innerText()).toMatch(
      /assign services\/devices\.outpost\/plans\/project-small with devices 500 \(eu\)/,
    );
    await page().locator('meter').first().waitFor();
    expect(await tab.seriousAccessibilityViolations()).toEqual([]);
    expect(await tab.controlsUnreachableByKeyboard()).toEqual([]);
    await tab.screenshots('limits-pending');
    await row.getByRole('button', { name: 'Accept' }).click();
    await page().getByText(`Accepted ${request}.`).waitFor();
    await page().getByText('No pending request.').waitFor();
    expect((await admin.get<{ status?: { conclusion?: string } }>(request)).status?.conclusion).toBe('APPROVED');

    await page().getByLabel('Organization or project').fill('projects/dash-shop');
    await page().getByLabel('Organization or project').press('Enter');
    const devicesLimit = page()
      .locator('tr', { has: page().locator('meter[aria-label$="usage"]') })
      .first();
    await devicesLimit.waitFor({ timeout: 30_000 });
    expect(tab.failedRequests).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });
});
