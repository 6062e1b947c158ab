// @vitest-environment dashboard-dom
/**
 * The dashboard's screens (`app.js`, `ui/`) in jsdom against a real control plane and a real droplet (simulated
 * boot backend, its own process), driven as a user drives them: Upload files into the "Path on device" directory
 * (names kept, a progress bar each) and Download file by its full path, both through jsdom's XMLHttpRequest;
 * Restart on an application's menu and Reboot from the device menu, each after its confirm dialog.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '@outpost/shared';
import { TEST_ADMIN_KEY } from '../helpers/test-server.js';
import { waitForDevice } from '../../../test/integration/helpers/wait-for.js';
import { RemoteOpsWorld, online } from '../../../test/integration/remote-ops-fixture.js';
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

const region = 'projects/screens-ops/regions/eu';
const device = `${region}/devices/screen-box`;
const world = new RemoteOpsWorld();
let page: DashboardPage;

beforeAll(async () => {
  await world.start();
  await world.onlineDevice(device);
  page = await loadDashboardPage(world.server.url);
  sessionStorage.setItem('outpost.apiKey', TEST_ADMIN_KEY); // signed in (dashboard-screens.test.ts signs in)
  location.hash = `#device?name=${encodeURIComponent(device)}`;
  await import('../../src/web/assets/app.js');
  await until(() => byText('button', 'Create health check'));
}, 60_000);
afterAll(() => world.stop(), 30_000);

const view = (): HTMLElement => document.getElementById('view') as HTMLElement;
const section = (title: RegExp | string) => byText<HTMLElement>('div, section', title, view());

/** Chooses files in a file field as a user does in the file picker. */
function chooseFiles(field: Element | null, files: File[]): void {
  if (!(field instanceof HTMLInputElement) || field.type !== 'file') throw new Error('no file field');
  Object.defineProperty(field, 'files', { configurable: true, value: files });
  field.dispatchEvent(new Event('change', { bubbles: true }));
}

/** Every text the state cells of the transfer rows under `area` showed, as they changed. */
function watchStates(area: Element): { states: string[]; stop: () => void } {
  const states: string[] = [];
  const observer = new MutationObserver(() => {
    for (const row of area.querySelectorAll('.transfer-row')) states.push(textOf(row.lastElementChild));
  });
  observer.observe(area, { subtree: true, childList: true, characterData: true });
  return { states, stop: () => observer.disconnect() };
}

describe('files', () => {
  it('uploads several files into the Path on device directory under their names, each with its progress', async () => {
    const into = world.folder('uploads');
    const big = Buffer.alloc(300_000, 7);
    const upload = () => byText<HTMLElement>('div', /^Upload files/, view());
    type(upload().querySelector('input[name="path"]'), into); // no trailing slash: still the directory
    chooseFiles(upload().querySelector('input[type="file"]'), [
      new File(['port = 8000\n'], 'app.conf'),
      new File([big], 'notes with space.txt'),
    ]);
    const watch = watchStates(upload());
    click(byText('button', 'Upload', upload()));
    await until(() => expect(notices('ok', upload()), textOf(upload())).toEqual(['2 file(s) uploaded.']), 20_000);
    watch.stop();
    const rows = [...upload().querySelectorAll('.transfer-row')];
    expect(rows.map((r) => textOf(r))).toEqual([
      `app.conf 12 B uploaded to ${into}/app.conf`,
      `notes with space.txt 293.0 KiB uploaded to ${into}/notes with space.txt`,
    ]);
    expect(rows.map((r) => r.querySelector('progress')?.value)).toEqual([100, 100]);
    expect(watch.states.some((s) => /^293\.0 KiB \(100 %\)$/.test(s))).toBe(true);
    expect(readFileSync(join(into, 'app.conf'), 'utf8')).toBe('port = 8000\n');
    expect(readFileSync(join(into, 'notes with space.txt')).equals(big)).toBe(true);
  });

  it('downloads one file by its full path, saved under its remote name, with its progress', async () => {
    const bytes = Buffer.alloc(200_000, 3);
    const remote = join(world.folder('downloads'), 'device log.txt');
    writeFileSync(remote, bytes);
    const download = () => byText<HTMLElement>('div', /^Download file/, view());
    type(download().querySelector('input[name="path"]'), remote);
    const watch = watchStates(download());
    click(byText('button', 'Download', download()));
    await until(() => expect(page.downloads).toHaveLength(1), 20_000);
    watch.stop();
    expect(page.downloads[0]?.name).toBe('device log.txt');
    expect(page.downloads[0]?.bytes.equals(bytes)).toBe(true);
    const row = download().querySelector('.transfer-row');
    expect(textOf(row)).toBe('device log.txt 195.3 KiB saved as device log.txt (195.3 KiB)');
    expect(row?.querySelector('progress')?.value).toBe(100);
    expect(watch.states.some((s) => /^195\.3 KiB \(100 %\)$/.test(s))).toBe(true);
  });

  it('is saved under its remote name even when the Content-Disposition header cannot carry that name', async () => {
    const remote = join(world.folder('downloads'), 'report "q1".txt');
    writeFileSync(remote, 'q1\n');
    const download = () => byText<HTMLElement>('div', /^Download file/, view());
    type(download().querySelector('input[name="path"]'), remote);
    click(byText('button', 'Download', download()));
    await until(() => expect(page.downloads).toHaveLength(2), 20_000);
    expect(page.downloads[1]).toEqual({ name: 'report "q1".txt', bytes: Buffer.from('q1\n') });
    expect(textOf(download().querySelector('.transfer-row'))).toBe(
      'report "q1".txt 3 B saved as report "q1".txt (3 B)',
    );
  });

  it('a file that is not there is the device error on its row, and nothing is saved', async () => {
    const download = () => byText<HTMLElement>('div', /^Download file/, view());
    type(download().querySelector('input[name="path"]'), '/nonexistent/dashboard/file');
    click(byText('button', 'Download', download()));
    await until(() => expect(notices('error', download())).toEqual([expect.stringMatching(/^NOT_FOUND \(404\): /)]));
    expect(page.downloads).toHaveLength(2);
    type(download().querySelector('input[name="path"]'), '/var/log/');
    click(byText('button', 'Download', download()));
    // the refusal replaces what the last download showed
    await until(() =>
      expect(notices('error', download())).toEqual([
        'Path on device "/var/log/" is a directory: give the full path of one file',
      ]),
    );
    expect(download().querySelector('.transfer-row')).toBeNull();
  });
});

describe('device and application actions', () => {
  it('Restart on an application restarts its services, after the confirm', async () => {
    const pod = `${region}/pods/web`;
    await world.server.admin.create(region, 'pods', {
      name: pod,
      spec: { node: device, services: [{ name: 'api', command: ['sleep', '600'] }] },
    });
    const pidOf = (p: Pod): number | undefined => p.status?.serviceStatuses?.find((s) => s.name === 'api')?.pid;
    const running = await until(async () => {
      const p = await world.server.admin.get<Pod>(pod);
      if (p.status?.phase !== 'RUNNING' || pidOf(p) === undefined) throw new Error('not running yet');
      return p;
    }, 20_000);
    click(byText('button', 'Refresh'));
    const row = await until(() => byText('tr', /^web RUNNING/, section(/^Applications/)));
    chooseFromMenu(byText<HTMLDetailsElement>('details', /^Actions/, row), 'Restart');
    expect(await answerDialog('Restart')).toBe(`Restart ${pod}?`);
    await until(() => expect(notices('ok', section(/^Applications/))).toEqual([`Restarted ${pod}.`]), 20_000);
    await until(async () => {
      const p = await world.server.admin.get<Pod>(pod);
      expect(p.status?.phase === 'RUNNING' && pidOf(p) !== undefined && pidOf(p) !== pidOf(running)).toBe(true);
    }, 20_000);
  });

  it('Reboot from the device menu, after the confirm: accepted, and the device comes back', async () => {
    const before = await waitForDevice(
      world.server.admin,
      device,
      (d) => online(d) && d.status?.agent?.bootId !== undefined,
    );
    chooseFromMenu(byText<HTMLDetailsElement>('details', /^Device/, view()), 'Reboot');
    expect(await answerDialog('Reboot')).toBe(`Reboot ${device}?`);
    await until(() => expect(notices('ok', view())).toContain('Reboot: the device accepted the request.'), 20_000);
    const bootId = before.status?.agent?.bootId;
    await waitForDevice(world.server.admin, device, (d) => online(d) && d.status?.agent?.bootId !== bootId, 30_000);
  });
});
