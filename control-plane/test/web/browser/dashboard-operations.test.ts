/**
 * Each spec-000 dashboard operation in Chromium, by clicking, with the API's state asserted afterwards, against a
 * real control plane and a real droplet (simulated boot backend, its own process): Edit detail (set the OS
 * version; a version the device cannot take is refused and changes nothing), the device list a page at a time,
 * Upload files, Download file, Restart an application, define and delete health checks, Reboot (the device comes
 * back), Shutdown (the device goes Offline), each behind its confirm dialog; and Forget API key.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import type { Device, HealthCheck, Pod } from '@outpost/shared';
import { TEST_ADMIN_KEY } from '../../helpers/test-server.js';
import { waitForDevice } from '../../../../test/integration/helpers/wait-for.js';
import { RemoteOpsWorld, offline, online } from '../../../../test/integration/remote-ops-fixture.js';
import { publishSimVersion } from '../os-catalog-fixture.js';
import { DashboardTab, browserUnavailable, launchBrowser } from './browser-harness.js';

const region = 'projects/ops-dash/regions/eu';
const stored = `${region}/devices/gw-1`;
const droplet = `${region}/devices/ops-box`;
const unavailable = browserUnavailable();
const world = new RemoteOpsWorld();
let browser: Browser;
let tab: DashboardTab;
const page = (): Page => tab.page;
const section = (title: RegExp): Locator =>
  page().locator('section', { has: page().getByRole('heading', { name: title }) });

async function openDevice(name: string): Promise<void> {
  await page().goto(`${world.server.url}/#device?name=${encodeURIComponent(name)}`);
  await page().getByRole('heading', { name: 'Reported by the device' }).waitFor();
}

/** Answers the confirm dialog; returns its question. */
async function answer(button: string): Promise<string> {
  const dialog = page().locator('dialog[open]');
  const question = await dialog.getByRole('heading').innerText();
  await dialog.getByRole('button', { name: button, exact: true }).click();
  return question;
}

const REPORTED_AT = '2026-11-28T10:00:00.000Z';
/** What an agent reports, in every part the device page has a panel for. */
const REPORTED = {
  connectionStatus: 'DISCONNECTED',
  deviceInfo: {
    osVersion: '1.0.0',
    deviceType: 'sim',
    architecture: 'amd64',
    kernelVersion: '6.1.0-28-amd64',
    hardwareInformation: {
      system: { manufacturer: 'Acme Boards', productName: 'Edge 4' },
      cpu: { model: 'Atom x6425E', cores: 4, speedGHz: 2 },
      memory: { totalBytes: 8_053_063_680 },
      disks: [{ name: 'sda', sizeBytes: 64_424_509_440, model: 'SSD 64', interfaceType: 'SATA' }],
      fileSystems: [{ device: '/dev/sda3', type: 'ext4', mount: '/data', sizeBytes: 32_212_254_720 }],
      temperature: { mainCelsius: 48.5, maxCelsius: 105 },
    },
    networkInterfaces: {
      eth0: { interfaceName: 'eth0', ipAddressV4: ['10.0.0.7'], mac: '02:00:00:00:00:07', speedMbps: 1000 },
      wlan0: { interfaceName: 'wlan0', operState: 'down', type: 'wireless' },
    },
    usage: { cpuPercent: 12.5, temperatureCelsius: 51.25 },
  },
  osUpdate: {
    bootBackend: 'file',
    runningSlot: 'A',
    activeSlot: 'A',
    trySlot: 'B',
    slots: { A: { version: '1.0.0' }, B: { version: '1.1.0' } },
  },
  configuration: {
    network: {
      desiredGeneration: 4,
      appliedGeneration: 3,
      source: 'known-good',
      lastError: 'the control plane was not reached within 90 s',
      updateTime: REPORTED_AT,
    },
    ssh: { desiredGeneration: 2, appliedGeneration: 2, source: 'desired', updateTime: REPORTED_AT },
  },
  hooks: [{ hook: 'on-boot', startTime: REPORTED_AT, durationMs: 1200, exitCode: 0, timedOut: false, bootId: 'b-1' }],
};

describe.skipIf(unavailable !== '')('spec-000 dashboard operations in Chromium', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    await world.start(5);
    await world.server.admin.create('', 'deviceTypes', { name: 'deviceTypes/sim', architecture: 'AMD64' });
    await publishSimVersion(world.server, '1.0.0');
    await publishSimVersion(world.server, '1.1.0');
    await publishSimVersion(world.server, '1.2.0');
    await publishSimVersion(world.server, '2.0.0', '1.5.0');
    world.server.engine.resource('devices').put({
      name: stored,
      metadata: { labels: { role: 'gateway' } },
      status: REPORTED,
    });
    await world.onlineDevice(droplet);
    browser = await launchBrowser();
    tab = await DashboardTab.open(browser, world.server.url);
    await tab.signIn(TEST_ADMIN_KEY);
  }, 120_000);
  afterAll(async () => {
    await tab?.close();
    await browser?.close();
    await world.stop();
  }, 60_000);

  it('the device list goes a page at a time', async () => {
    const many = 'projects/many-dash/regions/north';
    for (let i = 0; i < 52; i++) {
      world.server.engine.resource('devices').put({
        name: `${many}/devices/box-${String(i).padStart(2, '0')}`,
        status: { connectionStatus: 'DISCONNECTED' },
      });
    }
    await page().getByLabel('Parent').fill('projects/many-dash/regions/-');
    await page().getByLabel('Parent').press('Enter');
    const rows = page().locator('table.devices tbody tr');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(50);
    expect(await rows.first().innerText()).toMatch(/box-00\s+Offline/);
    await page().getByRole('button', { name: 'Next page →' }).click();
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(2);
    expect(await rows.last().innerText()).toMatch(/box-51\s+Offline/);
    expect(await page().getByRole('button', { name: 'Next page →' }).isDisabled()).toBe(true);
    await page().getByRole('button', { name: '← Previous page' }).click();
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(50);
    expect(tab.failedRequests).toEqual([]);
  });

  it('Edit detail (running and retained versions marked) sets spec.osVersion; a version the device cannot take is refused and changes nothing', async () => {
    await openDevice(stored);
    await page().getByRole('button', { name: 'Edit detail' }).click();
    const select = page().getByLabel(/^OS version \(published/);
    // the picker marks the running version and the one kept in the other slot (what a rollback boots)
    expect(await select.locator('option').allInnerTexts()).toEqual([
      '2.0.0 · needs ≥ 1.5.0',
      '1.2.0',
      '1.1.0 · retained (the rollback slot)',
      '1.0.0 · running',
    ]);
    await select.selectOption('1.2.0');
    await page().getByRole('button', { name: 'Save' }).click();
    const osRow = page().locator('tr', { has: page().getByRole('rowheader', { name: 'OS', exact: true }) });
    await expect.poll(() => osRow.innerText(), { timeout: 30_000 }).toMatch(/1\.2\.0 \(running 1\.0\.0\)/);
    expect((await world.server.admin.get<Device>(stored)).spec?.osVersion).toBe('1.2.0');
    expect(tab.failedRequests).toEqual([]);

    const before = await world.server.admin.get<Device>(stored);
    await page().getByRole('button', { name: 'Edit detail' }).click();
    await page()
      .getByLabel(/^OS version \(published/)
      .selectOption('2.0.0');
    await page().getByRole('button', { name: 'Save' }).click();
    await page()
      .getByRole('alert')
      .getByText(/FAILED_PRECONDITION \(400\): version 2\.0\.0 needs/)
      .waitFor();
    expect(await world.server.admin.get(stored)).toEqual(before);
    await page().getByRole('button', { name: 'Cancel' }).click();
    tab.clearRecords(); // the refusal was a 400, which Chromium logs
  });

  it('shows what the device reports in panels, with units: hardware, disks, interfaces, temperature, slots, configuration, hooks', async () => {
    await openDevice(stored);
    const panel = (name: string) => page().getByRole('region', { name, exact: true });
    await expect.poll(() => panel('Hardware').innerText()).toMatch(/Acme Boards[\s\S]*Atom x6425E[\s\S]*7\.5 GiB/);
    expect(await panel('Hardware').innerText()).toMatch(/speedGHz\s+2 GHz/);
    expect(await panel('Disks and file systems').innerText()).toMatch(
      /sda\s+60\.0 GiB\s+SSD 64[\s\S]*\/data\s+30\.0 GiB/,
    );
    const interfaces = await panel('Network interfaces').innerText();
    expect(interfaces).toMatch(/eth0\s+eth0\s+10\.0\.0\.7\s+02:00:00:00:00:07\s+1 Gbit\/s/);
    expect(interfaces).toMatch(/wlan0\s+wlan0\s+down\s+wireless/);
    expect(await panel('Temperature and usage').innerText()).toMatch(/12\.5 %[\s\S]*51\.3 °C[\s\S]*48\.5 °C/);
    const slots = await panel('OS slots').innerText();
    expect(slots).toMatch(/A\s+1\.0\.0\s+running, committed/);
    expect(slots).toMatch(/B\s+1\.1\.0\s+retained, trial on the next boot/);
    const configuration = await panel('Network and SSH configuration').innerText();
    expect(configuration).toMatch(
      /network\s+fallen back to the last known-good configuration\s+3 applied of 4\s+the control plane was not reached within 90 s/,
    );
    expect(configuration).toMatch(/ssh\s+applied\s+2 applied of 2/);
    expect(await panel('Hook runs').innerText()).toMatch(/on-boot\s+.*\s+1\.2 s\s+0\s+no\s+b-1/);
    expect(await tab.seriousAccessibilityViolations()).toEqual([]);
    await tab.screenshots('device-panels');
    expect(tab.failedRequests).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });

  it('an offline device: its remote controls are disabled with the reason', async () => {
    await page().getByText('The device is offline').waitFor();
    expect(await page().getByRole('button', { name: 'Upload' }).isDisabled()).toBe(true);
    expect(await page().getByRole('button', { name: 'Download' }).isDisabled()).toBe(true);
  });

  it('health checks: one defined for this device runs on it and is deleted after a confirm', async () => {
    const checks = section(/^Health checks of /);
    await checks.getByLabel('Id').fill('disk');
    await checks.getByLabel(/^Type/).selectOption('COMMAND');
    await checks.getByLabel(/^Command/).fill('test -w /outpost/data');
    await checks.getByLabel('Interval (s)').fill('30');
    await checks.getByRole('button', { name: 'Create health check' }).click();
    const row = checks.locator('tr', { hasText: /^disk/ });
    await expect.poll(() => row.innerText(), { timeout: 30_000 }).toMatch(/disk\s+COMMAND\s+test -w \/outpost\/data/);
    expect((await world.server.admin.get<HealthCheck>(`${region}/healthChecks/disk`)).spec).toMatchObject({
      type: 'COMMAND',
      intervalSeconds: 30,
      command: { argv: ['test', '-w', '/outpost/data'] },
    });
    expect((await world.server.admin.get<Device>(stored)).spec?.healthChecks).toEqual([`${region}/healthChecks/disk`]);
    await row.getByRole('button', { name: 'Delete' }).click();
    expect(await answer('Cancel')).toBe('Delete disk?');
    await world.server.admin.get(`${region}/healthChecks/disk`);
    await row.getByRole('button', { name: 'Delete' }).click();
    await answer('Delete');
    await checks.getByText('No health check is defined in this region.').waitFor();
    await expect(world.server.admin.get(`${region}/healthChecks/disk`)).rejects.toMatchObject({ status: 'NOT_FOUND' });
    expect((await world.server.admin.get<Device>(stored)).spec?.healthChecks).toEqual([]);
    expect(tab.failedRequests).toEqual([]);
  });

  it('health checks: every field of an HTTP check, then Edit changes it; a device file check of a type', async () => {
    const checks = section(/^Health checks of /);
    await checks.getByLabel('Id').fill('web');
    await checks.getByLabel(/^Type/).selectOption('HTTP');
    await checks.getByLabel('URL').fill('http://127.0.0.1:8000/health');
    await checks.getByLabel('Method').selectOption('POST');
    await checks.getByLabel('Expected status from').fill('200');
    await checks.getByLabel('Expected status to').fill('204');
    await checks.getByLabel('Body contains').fill('ok');
    await checks.getByLabel('Interval (s)').fill('15');
    await checks.getByLabel('Timeout (s)').fill('2');
    await checks.getByLabel('Success threshold').fill('2');
    await checks.getByLabel('Failure threshold').fill('4');
    await checks.getByLabel('devices labelled').check();
    await checks.locator('input[name="labels"]').fill('role=gateway');
    await checks.getByRole('button', { name: 'Create health check' }).click();
    const name = `${region}/healthChecks/web`;
    const row = checks.locator('tr', { hasText: /^web/ });
    await row.waitFor();
    expect((await world.server.admin.get<HealthCheck>(name)).spec).toEqual({
      type: 'HTTP',
      http: {
        url: 'http://127.0.0.1:8000/health',
        method: 'POST',
        expectedStatus: { min: 200, max: 204 },
        bodyContains: 'ok',
      },
      intervalSeconds: 15,
      timeoutSeconds: 2,
      successThreshold: 2,
      failureThreshold: 4,
      selector: { matchLabels: { role: 'gateway' } },
    });

    await row.getByRole('button', { name: 'Edit web' }).click();
    await checks.getByRole('heading', { name: 'Edit web' }).waitFor();
    expect(await checks.getByLabel('Method').inputValue()).toBe('POST');
    expect(await checks.getByLabel('Body contains').inputValue()).toBe('ok');
    await checks.getByLabel('Method').selectOption('HEAD');
    await checks.getByLabel('Body contains').fill('');
    await checks.getByLabel('Failure threshold').fill('6');
    await checks.getByRole('button', { name: 'Save health check' }).click();
    await expect
      .poll(async () => (await world.server.admin.get<HealthCheck>(name)).spec, { timeout: 30_000 })
      .toEqual({
        type: 'HTTP',
        http: { url: 'http://127.0.0.1:8000/health', method: 'HEAD', expectedStatus: { min: 200, max: 204 } },
        intervalSeconds: 15,
        timeoutSeconds: 2,
        successThreshold: 2,
        failureThreshold: 6,
        selector: { matchLabels: { role: 'gateway' } },
      });

    await checks.getByLabel('Id').fill('serial');
    await checks.getByLabel(/^Type/).selectOption('DEVICE_FILE');
    await checks.getByLabel('Path on device').fill('/dev/ttyUSB0');
    await checks.getByLabel('File type').selectOption('CHARACTER_DEVICE');
    await checks.getByLabel('every device of the region').check();
    await checks.getByRole('button', { name: 'Create health check' }).click();
    await checks.locator('tr', { hasText: /^serial/ }).waitFor();
    expect((await world.server.admin.get<HealthCheck>(`${region}/healthChecks/serial`)).spec).toEqual({
      type: 'DEVICE_FILE',
      deviceFile: { path: '/dev/ttyUSB0', type: 'CHARACTER_DEVICE' },
      selector: { matchLabels: {} },
    });
    for (const id of ['web', 'serial']) await world.server.admin.delete(`${region}/healthChecks/${id}`);
    expect(tab.failedRequests).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });

  it('uploads files into the Path on device directory under their names', async () => {
    await openDevice(droplet);
    const into = world.folder('uploads');
    const big = Buffer.alloc(300_000, 7);
    const upload = page().locator('form', { has: page().getByRole('button', { name: 'Upload' }) });
    await upload.getByLabel(/^Path on device/).fill(into);
    await upload.getByLabel('Files').setInputFiles([
      { name: 'app.conf', mimeType: 'text/plain', buffer: Buffer.from('port = 8000\n') },
      { name: 'notes with space.txt', mimeType: 'text/plain', buffer: big },
    ]);
    await upload.getByRole('button', { name: 'Upload' }).click();
    await page().getByText('2 file(s) uploaded.').waitFor();
    expect(readFileSync(join(into, 'app.conf'), 'utf8')).toBe('port = 8000\n');
    expect(readFileSync(join(into, 'notes with space.txt')).equals(big)).toBe(true);
  });

  it('downloads one file by its full path, saved under its remote name', async () => {
    const bytes = Buffer.alloc(200_000, 3);
    const remote = join(world.folder('downloads'), 'device log.txt');
    writeFileSync(remote, bytes);
    const form = page().locator('form', { has: page().getByRole('button', { name: 'Download' }) });
    await form.getByLabel(/^Path on device/).fill(remote);
    const [download] = await Promise.all([
      page().waitForEvent('download'),
      form.getByRole('button', { name: 'Download' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('device log.txt');
    expect(readFileSync(await download.path()).equals(bytes)).toBe(true);
  });

  it('Restart on an application (shown live) restarts its services, after the confirm', async () => {
    const pod = `${region}/pods/web`;
    await world.server.admin.create(region, 'pods', {
      name: pod,
      spec: { node: droplet, services: [{ name: 'api', command: ['sleep', '600'] }] },
    });
    const pidOf = (p: Pod): number | undefined => p.status?.serviceStatuses?.find((s) => s.name === 'api')?.pid;
    const apps = section(/^Applications/);
    const row = apps.locator('tr', { hasText: /^web/ });
    await expect.poll(() => row.innerText(), { timeout: 30_000 }).toMatch(/^web\s+RUNNING/);
    const running = await world.server.admin.get<Pod>(pod);
    await row.locator('summary', { hasText: 'Actions' }).click();
    await row.getByRole('menuitem', { name: 'Restart' }).click();
    expect(await answer('Restart')).toBe(`Restart ${pod}?`);
    await apps.getByText(`Restarted ${pod}.`).waitFor();
    await expect
      .poll(
        async () => {
          const p = await world.server.admin.get<Pod>(pod);
          return p.status?.phase === 'RUNNING' && pidOf(p) !== undefined && pidOf(p) !== pidOf(running);
        },
        { timeout: 30_000 },
      )
      .toBe(true);
  });

  it('the terminal tab runs a shell on the device (xterm.js on the :terminal WebSocket), under the page policy', async () => {
    await page().getByRole('button', { name: 'Open terminal' }).click();
    await page().getByText('Shell on the device').waitFor();
    const screen = page().locator('.terminal-screen .xterm-rows');
    await screen.waitFor();
    await page().locator('.terminal-screen').click();
    await page().keyboard.type('echo hello-$((6*7))');
    await page().keyboard.press('Enter');
    await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toContain('hello-42');
    await page().keyboard.type('exit 3');
    await page().keyboard.press('Enter');
    await page().getByText('Session ended: exit status 3').waitFor({ timeout: 30_000 });
    expect(tab.consoleErrors).toEqual([]); // xterm.js's own style elements carry the page's nonce
  });

  it('Reboot from the device menu, after the confirm: accepted, and the device comes back', async () => {
    const before = await waitForDevice(
      world.server.admin,
      droplet,
      (d) => online(d) && d.status?.agent?.bootId !== undefined,
    );
    await page()
      .locator('summary', { hasText: /^Device/ })
      .click();
    await page().getByRole('menuitem', { name: 'Reboot' }).click();
    expect(await answer('Reboot')).toBe(`Reboot ${droplet}?`);
    await page().getByText('Reboot: the device accepted the request.').waitFor();
    const bootId = before.status?.agent?.bootId;
    await waitForDevice(world.server.admin, droplet, (d) => online(d) && d.status?.agent?.bootId !== bootId, 60_000);
  });

  it('Shutdown from the device menu, after the confirm: the device goes Offline, shown without a reload', async () => {
    const heading = page().getByRole('heading', { level: 1 });
    await expect.poll(() => heading.innerText(), { timeout: 60_000 }).toMatch(/ops-box\s+Online/);
    await page()
      .locator('summary', { hasText: /^Device/ })
      .click();
    await page().getByRole('menuitem', { name: 'Shutdown' }).click();
    expect(await answer('Cancel')).toBe(`Shut down ${droplet}?`);
    expect(online(await world.server.admin.get<Device>(droplet))).toBe(true);
    await page()
      .locator('summary', { hasText: /^Device/ })
      .click();
    await page().getByRole('menuitem', { name: 'Shutdown' }).click();
    await answer('Shut down');
    await waitForDevice(world.server.admin, droplet, offline, 60_000);
    await expect.poll(() => heading.innerText(), { timeout: 30_000 }).toMatch(/ops-box\s+Offline/);
    expect(tab.failedRequests).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });

  it('Forget API key drops the key and shows the sign-in again', async () => {
    await page().getByRole('button', { name: 'Forget API key' }).click();
    await page().getByLabel('API key').waitFor();
    expect(await page().evaluate(() => sessionStorage.length)).toBe(0);
  });
});
