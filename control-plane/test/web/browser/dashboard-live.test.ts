/**
 * The dashboard in Chromium against a real control plane and a real droplet (simulated boot backend, its own
 * process): sign in with the field labelled "API key" and Enter; the fleet overview and device list follow watch
 * streams (a stopped agent shows Offline without a reload within two heartbeats; counts and rows change as the
 * fleet does); a lost network shows "Reconnecting…" and resumes; the filter box shows the API's error at its
 * position; label chips and sorting. Every screen is screenshotted at 1280×800 and 390×844, checked with
 * axe-core and walked with the Tab key; after sign-in no request answers ≥ 400 and the console stays clean.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { TEST_ADMIN_KEY } from '../../helpers/test-server.js';
import { RemoteOpsWorld } from '../../../../test/integration/remote-ops-fixture.js';
import type { Agent } from '../../../../test/integration/remote-ops-fixture.js';
import { DashboardTab, browserUnavailable, launchBrowser } from './browser-harness.js';
import { FlakyLink } from './flaky-link.js';
import { publishSimVersion } from '../os-catalog-fixture.js';

const HEARTBEAT_SECONDS = 10;
const region = 'projects/live-dash/regions/eu';
const droplet = `${region}/devices/live-box`;
const unavailable = browserUnavailable();
const world = new RemoteOpsWorld();
let link: FlakyLink;
let browser: Browser;
let tab: DashboardTab;
let agent: Agent;
const page = (): Page => tab.page;

/**
 * Devices the control plane knows without a droplet: offline, with labels, a reported version and their
 * health checks' verdicts (`Healthy/<id>` conditions).
 */
function storedDevice(
  id: string,
  labels: Record<string, string>,
  osVersion: string,
  checks: Record<string, 'True' | 'False'> = {},
): void {
  world.server.engine.resource('devices').put({
    name: `${region}/devices/${id}`,
    metadata: { labels },
    spec: { osVersion: '1.1.0' },
    status: {
      connectionStatus: 'DISCONNECTED',
      deviceInfo: { osVersion, deviceType: 'sim' },
      conditions: Object.entries(checks).map(([check, status]) => ({
        type: `Healthy/${check}`,
        status,
        reason: status === 'True' ? 'Passing' : 'Failing',
        message: '',
        lastTransitionTime: '2026-11-28T10:00:00.000Z',
      })),
    },
  });
}

describe.skipIf(unavailable !== '')('the dashboard, live, in Chromium', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    await world.start(HEARTBEAT_SECONDS);
    await world.server.admin.create('', 'deviceTypes', { name: 'deviceTypes/sim', architecture: 'AMD64' });
    await publishSimVersion(world.server, '1.1.0');
    storedDevice('gw-a', { role: 'gateway', site: 'north' }, '1.0.0', { web: 'True' });
    storedDevice('gw-b', { role: 'gateway', site: 'south' }, '1.1.0');
    storedDevice('cam-c', { role: 'camera' }, '1.0.0', { web: 'True', disk: 'False' });
    agent = await world.onlineDevice(droplet);
    link = new FlakyLink(new URL(world.server.url));
    await link.start();
    browser = await launchBrowser();
    tab = await DashboardTab.open(browser, link.url);
  }, 120_000);
  afterAll(async () => {
    await tab?.close();
    await browser?.close();
    await link?.stop();
    await world.stop();
  }, 60_000);

  it('signs in with the field labelled "API key" and Enter; a wrong key is refused and shown', async () => {
    const field = page().getByLabel('API key');
    await field.fill('opk_nobody_0123456789');
    await field.press('Enter');
    await page()
      .getByRole('alert')
      .getByText(/UNAUTHENTICATED \(401\)/)
      .waitFor();
    tab.clearRecords();
    await tab.signIn(TEST_ADMIN_KEY);
    await page().getByRole('heading', { name: 'Devices' }).waitFor();
  });

  it('shows the fleet overview and the device list, live, with no failed request or console error', async () => {
    await page().getByText('Online', { exact: false }).first().waitFor();
    const rows = page().locator('table.devices tbody tr');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(4);
    const overview = page().locator('.overview');
    await expect
      .poll(() => overview.innerText(), { timeout: 30_000 })
      .toMatch(/Connection \(4\)[\s\S]*1 Online[\s\S]*3 Offline/);
    await expect.poll(() => overview.innerText()).toMatch(/3 1\.0\.0/);
    await expect.poll(() => overview.innerText()).toMatch(/1 with a failing health check/);
    // desired against running version, relative last seen
    const gwA = page().locator(`tr[data-device="${region}/devices/gw-a"]`);
    await expect.poll(() => gwA.innerText()).toMatch(/1\.1\.0 \(running 1\.0\.0\)/);
    await expect.poll(() => gwA.innerText()).toMatch(/just now|s ago/);
    // a device that appears meanwhile shows up without a reload, in the list and the counts
    storedDevice('gw-d', { role: 'gateway' }, '1.1.0');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(5);
    await expect.poll(() => overview.innerText(), { timeout: 30_000 }).toMatch(/Connection \(5\)[\s\S]*4 Offline/);
    // the counts come from the server: no stateless watch asks for a snapshot of the fleet
    const stateless = tab.watchRequests.filter((r) => r.body['type'] === 'STATELESS');
    expect(stateless.length).toBeGreaterThan(0);
    expect(stateless.filter((r) => typeof r.body['resumeToken'] !== 'string' || r.body['resumeToken'] === '')).toEqual(
      [],
    );
    expect(tab.failedRequests).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });

  it('is accessible (axe-core: no serious violation), reachable by keyboard, and screenshotted', async () => {
    expect(await tab.seriousAccessibilityViolations()).toEqual([]);
    expect(await tab.controlsUnreachableByKeyboard()).toEqual([]);
    const paths = await tab.screenshots('devices');
    expect(paths).toHaveLength(2);
  });

  it('a count opens the filtered list; a label chip adds its filter; a column sorts', async () => {
    await page().locator('.overview a', { hasText: 'Online' }).click();
    await expect.poll(() => page().getByLabel('Filter').inputValue()).toBe('status.connectionStatus = "Online"');
    const rows = page().locator('table.devices tbody tr');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => rows.first().innerText()).toContain(droplet);
    await page().getByLabel('Filter').fill('');
    await page().getByLabel('Filter').press('Enter');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(5);
    await page().locator('.overview a', { hasText: 'with a failing health check' }).click();
    await expect.poll(() => page().getByLabel('Filter').inputValue()).toBe('status.failingHealthCheckCount > 0');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => rows.first().innerText()).toContain('cam-c');
    await page().getByLabel('Filter').fill('');
    await page().getByLabel('Filter').press('Enter');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(5);
    await page().getByRole('button', { name: 'site=north' }).click();
    await expect.poll(() => page().getByLabel('Filter').inputValue()).toBe('metadata.labels CONTAINS "site:north"');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(1);
    await page().getByLabel('Filter').fill('');
    await page().getByLabel('Filter').press('Enter');
    await page()
      .getByRole('button', { name: /^Device/ })
      .click(); // name: ascending is the default, now descending
    await expect
      .poll(async () => (await rows.locator('td:first-child a').allInnerTexts()).map((t) => t.split('/').at(-1)), {
        timeout: 30_000,
      })
      .toEqual(['live-box', 'gw-d', 'gw-b', 'gw-a', 'cam-c']);
    expect(tab.failedRequests).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });

  it('a filter the API refuses is shown with a caret at the position it names', async () => {
    await page().getByLabel('Filter').fill('status.connectionStatus = ');
    await page().getByLabel('Filter').press('Enter');
    const error = page().locator('.filter-error');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/INVALID_ARGUMENT \(400\): filter: .*at position 26/);
    expect(await error.locator('pre').innerText()).toBe(`status.connectionStatus =\n${' '.repeat(25)}^`);
    tab.clearRecords(); // the refused filter was a 400, and Chromium logs it
    await page().getByLabel('Filter').fill('');
    await page().getByLabel('Filter').press('Enter');
    await expect.poll(() => page().locator('table.devices tbody tr').count(), { timeout: 30_000 }).toBe(5);
  });

  it('a lost network shows Reconnecting…, then resumes and shows what changed meanwhile', async () => {
    const state = page().locator('#live-state');
    await expect.poll(() => state.innerText()).toBe('Live');
    link.cut();
    await expect.poll(() => state.innerText(), { timeout: 30_000 }).toBe('Reconnecting…');
    world.server.engine.resource('devices').delete({ name: `${region}/devices/gw-d` });
    link.restore();
    await expect.poll(() => state.innerText(), { timeout: 30_000 }).toBe('Live');
    await expect.poll(() => page().locator('table.devices tbody tr').count(), { timeout: 30_000 }).toBe(4);
    await expect.poll(() => page().locator('.overview').innerText(), { timeout: 30_000 }).toMatch(/Connection \(4\)/);
    tab.clearRecords(); // Chromium logs the refused connections of the outage
  });

  it('a stopped agent shows Offline on its page without a reload, within two heartbeats', async () => {
    await page().getByRole('link', { name: droplet }).click();
    const heading = page().getByRole('heading', { level: 1 });
    await expect.poll(() => heading.innerText(), { timeout: 30_000 }).toMatch(/live-box\s+Online/);
    await page().getByRole('heading', { name: 'Reported by the device' }).waitFor();
    // charts of CPU, memory, storage and temperature from /v1/{device}/metrics (the agent reports every second)
    const charts = page().locator('figure.chart');
    await expect
      .poll(
        async () => {
          await page().getByLabel('Last day').check();
          await page().getByLabel('Last hour').check();
          return charts.count();
        },
        { timeout: 30_000 },
      )
      .toBe(4);
    await expect.poll(() => charts.first().locator('figcaption').innerText()).toMatch(/^CPU: \d+\.\d %$/);
    expect(await charts.first().locator('canvas').count()).toBe(1);
    expect(await tab.seriousAccessibilityViolations()).toEqual([]);
    expect(await tab.controlsUnreachableByKeyboard()).toEqual([]);
    await tab.screenshots('device-online');
    await agent.kill('SIGKILL');
    await expect
      .poll(() => heading.innerText(), { timeout: 2 * HEARTBEAT_SECONDS * 1000 })
      .toMatch(/live-box\s+Offline/);
    // remote operations are disabled, with the reason
    await page().getByText('The device is offline').waitFor();
    expect(await page().getByRole('button', { name: 'Upload' }).isDisabled()).toBe(true);
    expect(
      await page()
        .getByRole('button', { name: /^Device/ })
        .isDisabled(),
    ).toBe(true);
    await tab.screenshots('device-offline');
    expect(tab.failedRequests).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });
});
