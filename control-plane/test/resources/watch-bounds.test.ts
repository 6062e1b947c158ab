import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { where } from '../../src/resources/resource-query.js';
import { openPausedWatch } from '../helpers/paused-watch.js';
import type { PausedWatch } from '../helpers/paused-watch.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { widgetDefinition } from '../helpers/widgets.js';
import type { Widget } from '../helpers/widgets.js';

/**
 * Large enough that a few pages fill the socket: the server then waits before reading the next page. It pads a
 * member no filter names (no column, no index): PostgreSQL refuses an index entry beyond about 2,700 bytes.
 */
const PADDING = 'x'.repeat(256 * 1024);
const padded = (size: number): Widget['spec'] => ({ size, network: { address: PADDING } });
const SEEDED = 60;

type Message = Record<string, unknown>;

/**
 * A stateless client as spec 001 Events describes it: changes since the last `isCurrent` are pending until the
 * next one; a soft reset drops them, a hard reset drops everything.
 */
class StatelessClient {
  readonly held = new Map<string, Widget>();
  private pending: Message[] = [];
  snapshotSize = -1;
  resumeToken = '';

  apply(message: Message): void {
    if (message['isHardReset'] === true) {
      this.held.clear();
      this.pending = [];
    }
    if (message['isSoftReset'] === true) this.pending = [];
    if (typeof message['snapshotSize'] === 'number' && message['snapshotSize'] >= 0) {
      this.snapshotSize = message['snapshotSize'];
    }
    this.pending.push(...((message['widgetChanges'] ?? []) as Message[]));
    if (message['isCurrent'] !== true) return;
    for (const change of this.pending) {
      const current = change['current'] as { widget: Widget } | undefined;
      if (current) this.held.set(current.widget.name, current.widget);
      const removed = change['removed'] as { name: string } | undefined;
      if (removed) this.held.delete(removed.name);
    }
    this.pending = [];
    this.resumeToken = message['resumeToken'] as string;
  }
}

const summary = (widgets: Iterable<Widget>): string[] =>
  [...widgets].map((w) => `${w.name.split('/').at(-1)}:${w.spec?.size}`).sort();

describe('a stateless snapshot read a page at a time', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(
      { resources: [{ def: widgetDefinition }] },
      { config: { watchStreamMaxBytes: 2 * 1024 * 1024 } },
    );
  });
  afterAll(async () => server.dispose());

  const seed = (parent: string): void => {
    const widgets = server.engine.resource('widgets');
    server.engine.transaction(() => {
      for (let i = 0; i < SEEDED; i++) {
        widgets.put({
          name: `${parent}/widgets/w${String(i).padStart(2, '0')}`,
          spec: padded(0),
        });
      }
    });
  };
  const tableOf = (parent: string): Widget[] =>
    server.engine
      .resource('widgets')
      .table.query({ where: [where.parent(parent)], keys: [{ key: 'name', desc: false }] })
      .map((row) => row.doc as Widget);

  const readToSize = async (watch: PausedWatch, client: StatelessClient): Promise<void> => {
    await watch.readUntil((m) => {
      client.apply(m);
      return typeof m['snapshotSize'] === 'number' && m['snapshotSize'] >= 0;
    });
  };

  it('holds the collection as of its resume token at isCurrent, with the writes made while it was read', async () => {
    const parent = 'projects/paged/regions/r1';
    seed(parent);
    const widgets = server.engine.resource('widgets');
    const watch = await openPausedWatch(`${server.url}/v1/${parent}/widgets:watch`, TEST_ADMIN_KEY, {
      type: 'STATELESS',
      maxChunkSize: 5,
    });
    const client = new StatelessClient();
    const [first] = await watch.readUntil(() => true); // the first page; the server is stuck further on
    client.apply(first!);
    expect(first!['isCurrent']).toBe(false);

    // while the client does not read: resources already sent and not yet read change, come and go
    const size = (id: string, value: number): void =>
      void widgets.patch(`${parent}/widgets/${id}`, (d) => ({ ...d, spec: { size: value } }));
    size('w01', 1);
    size('w59', 59);
    widgets.remove(`${parent}/widgets/w00`);
    widgets.remove(`${parent}/widgets/w58`);
    widgets.put({ name: `${parent}/widgets/w015`, spec: { size: 15 } });
    widgets.put({ name: `${parent}/widgets/w99`, spec: { size: 99 } });

    await readToSize(watch, client);
    watch.close();
    const table = tableOf(parent);
    expect(summary(client.held.values())).toEqual(summary(table));
    expect(client.snapshotSize).toBe(table.length);
    expect(client.resumeToken).not.toBe('');

    // the token is where the client is: resuming from it sends nothing
    const resumed = await openPausedWatch(`${server.url}/v1/${parent}/widgets:watch`, TEST_ADMIN_KEY, {
      type: 'STATELESS',
      resumeToken: client.resumeToken,
    });
    const [current] = await resumed.readUntil((m) => m['isCurrent'] === true);
    resumed.close();
    expect(current).toMatchObject({ widgetChanges: [], isSoftReset: false, isHardReset: false });
  });

  it('starts over (soft reset) when the changes of pages already sent outgrow its buffer', async () => {
    const parent = 'projects/paged/regions/r2';
    seed(parent);
    const widgets = server.engine.resource('widgets');
    const watch = await openPausedWatch(`${server.url}/v1/${parent}/widgets:watch`, TEST_ADMIN_KEY, {
      type: 'STATELESS',
      maxChunkSize: 5,
    });
    const client = new StatelessClient();
    client.apply((await watch.readUntil(() => true))[0]!);
    // 20 changes of 256 KB to a resource already sent: more than the stream's 2 MB
    for (let i = 1; i <= 20; i++) {
      widgets.patch(`${parent}/widgets/w00`, (d) => ({ ...d, spec: padded(i) }));
    }
    let softResets = 0;
    await watch.readUntil((m) => {
      if (m['isSoftReset'] === true) softResets++;
      client.apply(m);
      return typeof m['snapshotSize'] === 'number' && m['snapshotSize'] >= 0;
    });
    watch.close();
    expect(softResets).toBe(1);
    expect(summary(client.held.values())).toEqual(summary(tableOf(parent)));
    expect(client.held.get(`${parent}/widgets/w00`)?.spec?.size).toBe(20);
  });
});

describe('open watch streams are limited per API key and per server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(
      { resources: [{ def: widgetDefinition }] },
      { config: { watchStreamsPerKey: 2, watchStreamsPerServer: 3 } },
    );
  });
  afterAll(async () => server.dispose());

  it('refuses a stream beyond either limit with RESOURCE_EXHAUSTED (429), and admits one again once a stream ends', async () => {
    const url = `${server.url}/v1/projects/limited/regions/r1/widgets:watch`;
    const body = { type: 'STATELESS' };
    const { secret } = await server.admin.request<{ secret: string }>('POST', '/v1/apiKeys', {
      body: { displayName: 'second', grants: [{ permission: '*', scope: '*' }] },
    });
    const open: PausedWatch[] = [];
    const watch = async (key: string): Promise<PausedWatch> => {
      const opened = await openPausedWatch(url, key, body);
      open.push(opened);
      return opened;
    };
    try {
      expect((await watch(TEST_ADMIN_KEY)).status).toBe(200);
      const adminSecond = await watch(TEST_ADMIN_KEY);
      expect(adminSecond.status).toBe(200);
      const perKey = await watch(TEST_ADMIN_KEY);
      expect(perKey.status).toBe(429);
      const [refusal] = await perKey.readUntil(() => true);
      expect(refusal).toMatchObject({
        error: { status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('--watch-streams-per-key') },
      });

      expect((await watch(secret)).status).toBe(200);
      const perServer = await watch(secret);
      expect(perServer.status).toBe(429);
      expect((await perServer.readUntil(() => true))[0]).toMatchObject({
        error: { status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('--watch-streams-per-server') },
      });

      adminSecond.close();
      const deadline = Date.now() + 5_000;
      let again = await watch(TEST_ADMIN_KEY);
      while (again.status === 429 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        again = await watch(TEST_ADMIN_KEY);
      }
      expect(again.status).toBe(200);
    } finally {
      for (const w of open) w.close();
    }
  });
});
