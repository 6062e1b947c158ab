import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/resources/storage/sqlite/open-database.js';
import { AgentSocket } from '../gateway/helpers/agent-socket.js';
import { startLoggedServer } from './logged-server.js';
import type { LoggedServer } from './logged-server.js';

const DEVICE = 'projects/p1/regions/eu/devices/gw-full';
const POD = 'projects/p1/regions/eu/pods/web';

async function credentialOf(s: LoggedServer, name: string): Promise<string> {
  const parent = name.slice(0, name.indexOf('/devices/'));
  const created = await s.admin(`/v1/${parent}/devices`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(created.status).toBe(200);
  const issued = await s.admin(`/v1/${name}:issueCredential`, { method: 'POST', body: '{}' });
  return ((await issued.json()) as { credential: string }).credential;
}

describe('writes failing (a full disk) under a connected device', () => {
  it('refuses what the device sends with an error message and the server stays up', async () => {
    let db: Db | undefined;
    const s = await startLoggedServer({}, { onDatabaseOpened: (d) => (db = d) });
    const agent = await AgentSocket.connect(s.url, await credentialOf(s, DEVICE));
    try {
      const pod = await s.admin(`/v1/projects/p1/regions/eu/pods`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: POD, spec: { node: DEVICE, services: [{ name: 'app', command: ['true'] }] } }),
      });
      expect(pod.status).toBe(200);

      // every write fails from here on: a full disk can still let an update in place through, so the test makes
      // the database refuse all writes
      db!.pragma('query_only = ON');
      for (let i = 0; i < 20; i++) {
        agent.send({
          type: 'podStatus',
          pods: [{ name: POD, status: { phase: 'RUNNING', error: 'x'.repeat(3000 + i) } }],
        });
      }
      await agent.next('error');
      expect(agent.received.find((m) => m.type === 'error')).toMatchObject({ status: 'UNAVAILABLE' });

      // the writes that follow a committed device change (its metrics history, its pods marked UNKNOWN when it goes
      // offline) run after that commit: writes fail again from just after it
      db!.pragma('query_only = OFF');
      const devices = s.server.engine.resource('devices');
      devices.patch(DEVICE, (doc) => ({
        ...doc,
        status: {
          ...(doc['status'] as object),
          connectionStatus: 'DISCONNECTED',
          metrics: {
            time: new Date().toISOString(),
            cpu: { usagePercent: 5 },
            memory: { totalBytes: 1000, usedBytes: 400 },
            storage: [],
            uptimeSeconds: 61,
          },
        },
      }));
      db!.pragma('query_only = ON');
      await sleep(200);

      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
      expect((await s.admin(`/v1/${DEVICE}`)).status).toBe(200);
      const failed = s.serverErrors().map((line) => String(line['msg']));
      expect(failed).toContain('storing 1 metrics samples failed');
      expect(failed).toContain(`marking the pods of ${DEVICE} UNKNOWN failed`);
    } finally {
      agent.close();
      await s.dispose();
    }
  });
});
