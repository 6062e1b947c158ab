// @vitest-environment dashboard-dom
/**
 * The dashboard's screens (`app.js`, `ui/`) run in jsdom against a real control plane, driven as a user drives
 * them: sign in with an API key, the device list of a parent a page at a time, a device's overview, Edit detail
 * of its OS version, Reboot and Shutdown behind a confirm dialog, Restart on an application's menu, and health
 * checks defined and deleted. The devices here are offline (no droplet runs): remote operations are refused as
 * UNAVAILABLE, which the user sees (`dashboard-screens-droplet.test.ts` runs them on a real droplet).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device, HealthCheck } from '@outpost/shared';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { publishSimVersion } from './os-catalog-fixture.js';
import {
  answerDialog,
  byText,
  chooseFromMenu,
  click,
  loadDashboardPage,
  notices,
  textOf,
  type,
  until,
} from './dashboard-page.js';
import type { DashboardPage } from './dashboard-page.js';

const region = 'projects/screens/regions/eu';
const device = `${region}/devices/gw-1`;
let server: TestServer;
let page: DashboardPage;

beforeAll(async () => {
  server = await startTestServer();
  await server.admin.create('', 'deviceTypes', { name: 'deviceTypes/sim', architecture: 'AMD64' });
  await publishSimVersion(server, '1.1.0');
  await publishSimVersion(server, '1.2.0');
  await publishSimVersion(server, '2.0.0', '1.5.0');
  reportedDevice('gw-1');
  page = await loadDashboardPage(server.url);
  await import('../../src/web/assets/app.js');
});
afterAll(async () => server.dispose());

/** A device that has reported running 1.0.0 on deviceTypes/sim and is offline now. */
function reportedDevice(id: string, parent = region): string {
  const name = `${parent}/devices/${id}`;
  server.engine.resource('devices').put({
    name,
    metadata: { labels: { role: 'gateway' } },
    status: { connectionStatus: 'DISCONNECTED', deviceInfo: { osVersion: '1.0.0', deviceType: 'sim' } },
  });
  return name;
}

const view = (): HTMLElement => document.getElementById('view') as HTMLElement;
const errorShown = (text: string | RegExp) =>
  until(() => {
    const shown = notices('error');
    expect(
      shown.some((n) => (typeof text === 'string' ? n === text : text.test(n))),
      shown.join(' | '),
    ).toBe(true);
  });

/** Opens a device's overview from the device list of its project, as a user does. */
async function openOverview(name: string): Promise<void> {
  type(document.querySelector('input[name="parent"]'), `${name.split('/').slice(0, 2).join('/')}/regions/-`);
  click(byText('button', 'List devices'));
  click(await until(() => byText('a', name, view())));
  await until(() => expect(textOf(view().querySelector('h1'))).toMatch(new RegExp(`^${name.split('/').at(-1)} `)));
  // the sections load on their own: wait for the health checks form, the last of them
  await until(() => byText('button', 'Create health check'));
}

describe('signing in', () => {
  it('a wrong key shows the API error and keeps the login; the right key shows the device list', async () => {
    const key = await until(() => document.querySelector<HTMLInputElement>('input[name="apiKey"]'));
    expect(key).not.toBeNull();
    expect((document.getElementById('sign-out') as HTMLButtonElement).hidden).toBe(true);
    type(key, 'opk_nobody_0123456789');
    click(byText('button', 'Sign in'));
    await errorShown('UNAUTHENTICATED (401): invalid or revoked API key');
    expect(sessionStorage.length).toBe(0);
    expect(document.querySelector('input[name="apiKey"]')).not.toBeNull();

    type(document.querySelector('input[name="apiKey"]'), ` ${TEST_ADMIN_KEY} `);
    click(byText('button', 'Sign in'));
    await until(() => expect(textOf(view().querySelector('h1'))).toBe('Devices'));
    expect((document.getElementById('sign-out') as HTMLButtonElement).hidden).toBe(false);
    expect(Object.values(sessionStorage)).toEqual([TEST_ADMIN_KEY]);
  });
});

describe('the device list', () => {
  it('lists the devices of the parent typed in, a page at a time, and refuses a parent that is not one', async () => {
    const many = 'projects/many/regions/north';
    for (let i = 0; i < 52; i++) reportedDevice(`box-${String(i).padStart(2, '0')}`, many);
    type(document.querySelector('input[name="parent"]'), 'projects/many');
    click(byText('button', 'List devices'));
    await errorShown('"projects/many" is not projects/{project}/regions/{region or -}');

    type(document.querySelector('input[name="parent"]'), 'projects/many/regions/-');
    click(byText('button', 'List devices'));
    const rows = () => [...view().querySelectorAll('tbody tr')].map((r) => textOf(r));
    await until(() => expect(rows()).toHaveLength(50));
    expect(location.hash).toBe('#devices?parent=projects%2Fmany%2Fregions%2F-');
    expect(rows()[0]).toBe(`${many}/devices/box-00 Offline (not set) (running 1.0.0)`);
    expect(notices('error')).toEqual([]);
    const next = byText<HTMLButtonElement>('button', 'Next page');
    expect(next.hidden).toBe(false);
    click(next);
    await until(() => expect(rows()).toHaveLength(52));
    expect(rows().at(-1)).toMatch(/box-51 Offline/);
    await until(() => expect(next.hidden).toBe(true));

    type(document.querySelector('input[name="parent"]'), 'projects/nothing-here/regions/-');
    click(byText('button', 'List devices'));
    await until(() => expect(rows()).toEqual(['No devices under projects/nothing-here/regions/-.']));
  });
});

describe('a device overview', () => {
  it('leaving it before it has loaded keeps the screen the user went to', async () => {
    type(document.querySelector('input[name="parent"]'), 'projects/screens/regions/-');
    click(byText('button', 'List devices'));
    const link = await until(() => byText('a', device, view()));
    const shown = new Promise((resolve) => window.addEventListener('hashchange', resolve, { once: true }));
    click(link);
    await shown; // the overview is on screen, its device still on its way
    expect(textOf(view())).toBe(`← Devices Loading ${device}…`);
    click(byText('a', '← Devices', view()));
    await until(() => {
      expect(page.pending).toBe(0);
      expect(byText('a', device, view())).toBeDefined();
    });
    expect(location.hash).toBe('#devices?parent=projects%2Fscreens%2Fregions%2F-');
    expect(textOf(view().querySelector('h1'))).toBe('Devices');
  });

  it('shows the device: name, Offline, the OS version asked for against the one running', async () => {
    await openOverview(device);
    expect(textOf(view().querySelector('h1'))).toBe('gw-1 Offline');
    const detail = (label: string) => textOf(byText('th', label, view()).nextElementSibling);
    expect(detail('Name')).toBe(device);
    expect(detail('Device type')).toBe('deviceTypes/sim');
    expect(detail('OS version (spec.osVersion)')).toBe('(not set)');
    expect(detail('Running OS version (status.deviceInfo.osVersion)')).toBe('1.0.0');
    expect(location.hash).toBe(`#device?name=${encodeURIComponent(device)}`);
  });

  it('Edit detail: a catalog version chosen and saved is the device spec.osVersion', async () => {
    click(byText('button', 'Edit detail'));
    const select = await until(() => byText<HTMLSelectElement>('select', /1\.1\.0/));
    expect([...select.options].map((o) => textOf(o))).toEqual(['2.0.0 · needs ≥ 1.5.0', '1.2.0', '1.1.0']);
    type(select, '1.2.0');
    click(byText('button', 'Save'));
    await until(() =>
      expect(textOf(byText('th', 'OS version (spec.osVersion)', view()).nextElementSibling)).toBe('1.2.0'),
    );
    expect((await server.admin.get<Device>(device)).spec?.osVersion).toBe('1.2.0');
    expect(textOf(byText('th', 'OS', view()).nextElementSibling)).toBe('1.2.0 (running 1.0.0)');
    expect(byText('td', 'OSReady', view())).toBeDefined();
  });

  it('Edit detail: a version the device cannot take shows the API error and changes nothing', async () => {
    const before = await server.admin.get<Device>(device);
    click(byText('button', 'Edit detail'));
    const select = await until(() => byText<HTMLSelectElement>('select', /2\.0\.0/));
    expect(select.value).toBe('1.2.0'); // what the device asks for now
    type(select, '2.0.0');
    click(byText('button', 'Save'));
    await errorShown(
      'FAILED_PRECONDITION (400): version 2.0.0 needs the device to run at least 1.5.0; it runs 1.0.0: upgrade through 1.5.0 first',
    );
    expect(await server.admin.get(device)).toEqual(before);
    click(byText('button', 'Cancel'));
    expect(document.querySelector('select[name="osVersion"]')).toBeNull();
    expect(byText<HTMLButtonElement>('button', 'Edit detail').hidden).toBe(false);
  });

  it('Reboot and Shutdown ask first: Cancel sends nothing; confirmed, the offline device is UNAVAILABLE', async () => {
    const menu = byText<HTMLDetailsElement>('details', /^Device/, view());
    for (const [item, verb, question] of [
      ['Reboot', 'reboot', `Reboot ${device}?`],
      ['Shutdown', 'shutdown', `Shut down ${device}?`],
    ] as const) {
      page.calls.length = 0;
      chooseFromMenu(menu, item);
      expect(menu.open).toBe(false);
      expect(await answerDialog('Cancel')).toBe(question);
      expect(page.calls.filter((c) => c.endsWith(`:${verb}`))).toEqual([]);
      expect(notices('error')).toEqual([]);

      chooseFromMenu(menu, item);
      expect(await answerDialog(item === 'Reboot' ? 'Reboot' : 'Shut down')).toBe(question);
      await errorShown(/^UNAVAILABLE \(503\): .*offline/);
      expect(page.calls).toContain(`POST /v1/${device}:${verb}`);
      view().querySelector('.notice')?.remove();
    }
  });
});

describe("a device's applications", () => {
  it('lists the pods of the device; Restart asks first and shows the API error of an offline device', async () => {
    const pod = `${region}/pods/shop`;
    await server.admin.create(region, 'pods', {
      name: pod,
      spec: { node: device, services: [{ name: 'api', command: ['sleep', '600'] }] },
    });
    click(byText('button', 'Refresh'));
    const card = await until(() => byText('section', /^Applications/, view()));
    const row = await until(() => byText('tr', /^shop /, card));
    expect(textOf(row)).toMatch(/^shop PENDING api/);
    page.calls.length = 0;
    chooseFromMenu(byText<HTMLDetailsElement>('details', /^Actions/, row), 'Restart');
    expect(await answerDialog('Cancel')).toBe(`Restart ${pod}?`);
    expect(page.calls).toEqual([]);
    chooseFromMenu(byText<HTMLDetailsElement>('details', /^Actions/, row), 'Restart');
    await answerDialog('Restart');
    await until(() => expect(notices('error', card)).toEqual([expect.stringMatching(/^UNAVAILABLE \(503\): /)]));
    expect(page.calls).toEqual([`POST /v1/${pod}:restart`]);
  });
});

describe('health checks', () => {
  const checks = () => byText('section', /^Health checks of /, view());

  it('a check defined for this device is listed, runs on it, and is deleted after a confirm', async () => {
    const form = byText<HTMLFormElement>('form', /^Define a health check/, checks());
    type(form.querySelector('input[name="id"]'), 'disk');
    type(form.querySelector('select[name="type"]'), 'COMMAND');
    expect(byText<HTMLLabelElement>('label', /^Command/, form).hidden).toBe(false);
    expect(byText<HTMLLabelElement>('label', /^URL/, form).hidden).toBe(true);
    type(form.querySelector('input[name="command"]'), 'test -w /outpost/data');
    type(form.querySelector('input[name="intervalSeconds"]'), '30');
    click(byText('button', 'Create health check', form));
    const row = await until(() => byText('tr', /^disk /, checks()));
    expect(textOf(row)).toBe('disk COMMAND test -w /outpost/data devices that name it runs it (no result yet) Delete');
    const stored = await server.admin.get<HealthCheck>(`${region}/healthChecks/disk`);
    expect(stored.spec).toMatchObject({
      type: 'COMMAND',
      intervalSeconds: 30,
      command: { argv: ['test', '-w', '/outpost/data'] },
    });
    expect((await server.admin.get<Device>(device)).spec?.healthChecks).toEqual([`${region}/healthChecks/disk`]);

    click(byText('button', 'Delete', row));
    expect(await answerDialog('Cancel')).toBe('Delete disk?');
    expect(await server.admin.get(`${region}/healthChecks/disk`)).toBeDefined();
    click(byText('button', 'Delete', byText('tr', /^disk /, checks())));
    await answerDialog('Delete');
    await until(() => expect(textOf(checks())).toContain('No health check is defined in this region.'));
    await expect(server.admin.get(`${region}/healthChecks/disk`)).rejects.toMatchObject({ status: 'NOT_FOUND' });
    expect((await server.admin.get<Device>(device)).spec?.healthChecks).toEqual([]);
  });

  it('a check for labelled devices; what the form lacks and what the server refuses are shown', async () => {
    const form = () => byText<HTMLFormElement>('form', /^Define a health check/, checks());
    type(form().querySelector('input[name="id"]'), 'web');
    click(byText('button', 'Create health check', form()));
    await errorShown('a HTTP check needs a URL');
    type(form().querySelector('input[name="url"]'), 'http://127.0.0.1:8000/health');
    click(form().querySelector('input[name="appliesTo"][value="labels"]'));
    type(form().querySelector('input[name="labels"]'), 'role=gateway');
    click(byText('button', 'Create health check', form()));
    const row = await until(() => byText('tr', /^web /, checks()));
    expect(textOf(row)).toBe(
      'web HTTP http://127.0.0.1:8000/health devices labelled role=gateway runs it (no result yet) Delete',
    );
    expect((await server.admin.get<HealthCheck>(`${region}/healthChecks/web`)).spec.selector).toEqual({
      matchLabels: { role: 'gateway' },
    });
    expect((await server.admin.get<Device>(device)).spec?.healthChecks).toEqual([]);

    type(form().querySelector('input[name="id"]'), 'web');
    type(form().querySelector('input[name="url"]'), 'http://127.0.0.1:9000/');
    click(byText('button', 'Create health check', form()));
    await errorShown(/^ALREADY_EXISTS \(409\): /);
  });
});

describe('signing out', () => {
  it('Forget API key drops the key and shows the login again', async () => {
    click(document.getElementById('sign-out'));
    await until(() => expect(document.querySelector('input[name="apiKey"]')).not.toBeNull());
    expect(sessionStorage.length).toBe(0);
    expect((document.getElementById('sign-out') as HTMLButtonElement).hidden).toBe(true);
  });
});
