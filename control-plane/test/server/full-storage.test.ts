import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/resources/storage/sqlite/open-database.js';
import { widgetDefinition } from '../helpers/widgets.js';
import { ADMIN_KEY, after, parseRawResponse, rawConnection, startLoggedServer } from './logged-server.js';
import type { LoggedServer } from './logged-server.js';

const PARENT = 'projects/p1/regions/eu';

/** The disk is full: the database may not grow by a page (SQLite answers SQLITE_FULL, as on a full disk). */
function fillUp(db: Db): void {
  db.pragma(`max_page_count = ${Number(db.pragma('page_count', { simple: true }))}`);
}

/** Space is freed. */
function freeUp(db: Db): void {
  db.pragma('max_page_count = 1073741823');
}

async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await after(100, undefined)) {
    if (await check()) return true;
  }
  return check();
}

const createWidget = (s: LoggedServer, id: string, displayName = id) =>
  s.admin(`/v1/${PARENT}/widgets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `${PARENT}/widgets/${id}`, displayName }),
  });

describe('a full disk', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('answers a write with 503 "storage is full", goes on serving reads, and writes again once space is freed', async () => {
    let db: Db | undefined;
    const s = await startLoggedServer(
      {},
      { resources: [{ def: widgetDefinition }], onDatabaseOpened: (d) => (db = d) },
    );
    try {
      expect((await createWidget(s, 'w-before')).status).toBe(200);
      fillUp(db!);
      const refused = await createWidget(s, 'w-big', 'x'.repeat(200_000));
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({
        error: { code: 503, status: 'UNAVAILABLE', message: expect.stringContaining('storage is full') as string },
      });
      expect(s.serverErrors()).toEqual([]); // not a server fault: a warning
      expect((await s.admin(`/v1/${PARENT}/widgets/w-before`)).status).toBe(200);
      expect((await s.admin(`/v1/${PARENT}/widgets`)).status).toBe(200);
      expect((await s.admin(`/v1/${PARENT}/widgets/w-big`)).status).toBe(404);
      freeUp(db!);
      expect((await createWidget(s, 'w-big', 'x'.repeat(200_000))).status).toBe(200);
    } finally {
      await s.dispose();
    }
  });

  it('does not keep the server from starting; devices left online are marked offline once space is freed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-full-disk-'));
    dirs.push(dir);
    const names = Array.from({ length: 300 }, (_, i) => `${PARENT}/devices/device-${i}`);
    const first = await startLoggedServer({}, {}, dir);
    const devices = first.server.engine.resource('devices');
    for (const name of names) devices.put({ name });
    // as if the server had crashed while they were connected
    devices.patchAll(names.map((name) => [name, (doc) => ({ ...doc, status: { connectionStatus: 'CONNECTED' } })]));
    await first.server.close();
    // a crash leaves them CONNECTED; close wrote nothing for them (no session) but check it
    let db: Db | undefined;
    const s = await startLoggedServer({}, { onDatabaseOpened: (d) => fillUp((db = d)) }, dir);
    try {
      const stateOf = async (name: string): Promise<unknown> => {
        const res = await s.admin(`/v1/${name}`);
        expect(res.status).toBe(200);
        return ((await res.json()) as { status?: { connectionStatus?: unknown } }).status?.connectionStatus;
      };
      expect(await stateOf(names[0]!)).toBe('CONNECTED'); // the write waits for space; reads are served
      expect(s.logs.some((line) => line['msg'] === 'status write failed; retrying')).toBe(true);
      freeUp(db!);
      expect(await eventually(async () => (await stateOf(names[299]!)) === 'DISCONNECTED', 20_000)).toBe(true);
    } finally {
      await s.dispose();
    }
  });
});

describe('artifact uploads', () => {
  const upload = (s: LoggedServer, body: Buffer, headers: Record<string, string> = {}) =>
    s.admin('/v1/artifacts', {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream', ...headers },
      body,
    });
  const stored = (s: LoggedServer): string[] => {
    try {
      return readdirSync(join(s.dataDir, 'artifacts'));
    } catch {
      return [];
    }
  };

  it('answer 413 beyond --max-artifact-bytes, whether the size is declared or not, and store nothing', async () => {
    const s = await startLoggedServer({ maxArtifactBytes: 1024 });
    try {
      expect((await upload(s, Buffer.alloc(1024, 1))).status).toBe(200);
      const declared = await upload(s, Buffer.alloc(1025, 2));
      expect(declared.status).toBe(413);
      expect(await declared.json()).toMatchObject({
        error: { code: 413, message: expect.stringContaining('1024') as string },
      });
      // no Content-Length: the limit applies as the bytes arrive
      const chunked = await rawConnection(s.url);
      chunked.write(
        ['PUT /v1/artifacts HTTP/1.1', 'Host: test', `Authorization: Bearer ${ADMIN_KEY}`, 'Transfer-Encoding: chunked']
          .map((line) => line + '\r\n')
          .join('') + '\r\n',
      );
      for (let i = 0; i < 4; i++) chunked.write(`200\r\n${'c'.repeat(512)}\r\n`);
      await chunked.closed;
      expect(parseRawResponse(chunked.received()).status).toBe(413);
      expect(stored(s)).toHaveLength(1);
      expect(s.serverErrors()).toEqual([]);
    } finally {
      await s.dispose();
    }
  });

  it('are refused (503) when the free space of the data directory would fall below the reserve', async () => {
    const s = await startLoggedServer({ freeSpaceReserveBytes: Number.MAX_SAFE_INTEGER });
    try {
      const res = await upload(s, Buffer.alloc(1000, 1));
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        error: { status: 'UNAVAILABLE', message: expect.stringContaining('free space') as string },
      });
      expect(stored(s).filter((f) => !f.startsWith('.'))).toEqual([]);
    } finally {
      await s.dispose();
    }
  });
});
