import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetricsSample } from '@outpost/shared';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { RawAgent, createDevice } from '../healthchecks/helpers/raw-agent.js';

const parent = 'projects/acme/regions/eu';
const device = `${parent}/devices/gw-1`;
let server: TestServer;
let agent: RawAgent;
beforeAll(async () => {
  server = await startTestServer();
  agent = await RawAgent.connect(server, await createDevice(server, device));
});
afterAll(async () => {
  await agent.close();
  await server.dispose();
});

const get = async (path: string, key = TEST_ADMIN_KEY) => {
  const res = await fetch(`${server.url}${path}`, { headers: key === '' ? {} : { authorization: `Bearer ${key}` } });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
};

async function keyWith(permission: string, scope: string): Promise<string> {
  const res = await fetch(`${server.url}/v1/apiKeys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ displayName: 'limited', grants: [{ permission, scope }] }),
  });
  return ((await res.json()) as { secret: string }).secret;
}

const sample = (cpu: number): MetricsSample => ({
  time: new Date().toISOString(),
  cpu: { usagePercent: cpu },
  memory: { totalBytes: 4_000, usedBytes: 1_000 + cpu },
  storage: [{ mount: '/', totalBytes: 10_000, usedBytes: 2_500 }],
  temperatureCelsius: 50,
  uptimeSeconds: 100 + cpu,
  load1: 0.25,
});

interface Point {
  samples: number;
  cpuPercent: number;
  cpuPercentMax: number;
}

describe('GET /v1/{device_name}/metrics: the metrics history the gateway taps', () => {
  it('keeps every sample the agent sends and serves them per step', async (context) => {
    // its own device, connected only during the test: the gauges test counts exactly one connected device
    const device = perAttempt(context, `${parent}/devices/sampled`);
    const sampler = await RawAgent.connect(server, await createDevice(server, device));
    try {
      await keepsEverySample(device, sampler);
    } finally {
      await sampler.close();
    }
  });

  async function keepsEverySample(device: string, sampler: RawAgent): Promise<void> {
    for (const [i, cpu] of [10, 20, 60].entries()) {
      sampler.send({ type: 'metrics', ...sample(cpu) });
      // one sample per status write batch: wait until this one is in the history
      await expect
        .poll(async () => {
          const points = (await get(`/v1/${device}/metrics?step=1h`)).json()['points'] as Point[];
          return points.reduce((n, p) => n + p.samples, 0);
        })
        .toBe(i + 1);
    }
    const res = await get(`/v1/${device}/metrics?step=1h`);
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ name: device, step: '3600s', resolution: 'raw' });
    expect(Date.parse(body['to'] as string) - Date.parse(body['from'] as string)).toBe(3_600_000);
    const points = body['points'] as Point[];
    const merged = points.reduce(
      (a, p) => ({ samples: a.samples + p.samples, max: Math.max(a.max, p.cpuPercentMax) }),
      {
        samples: 0,
        max: 0,
      },
    );
    expect(merged).toEqual({ samples: 3, max: 60 });
    if (points.length === 1) {
      expect(points[0]).toMatchObject({ cpuPercent: 30, memoryUsedBytes: 1030, storageUsedBytes: 2500, load1: 0.25 });
    }

    const from = new Date(Date.now() - 10 * 60_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const fine = (await get(`/v1/${device}/metrics?from=${from}&to=${to}&step=1s`)).json();
    expect(fine['step']).toBe('1s');
    const finePoints = fine['points'] as Point[];
    expect(finePoints.reduce((n, p) => n + p.samples, 0)).toBe(3);
    expect(finePoints.reduce((sum, p) => sum + p.cpuPercent * p.samples, 0)).toBe(90);
  }

  it('needs devices.get on the device; refuses bad parameters; 404 for an unknown device', async () => {
    expect((await get(`/v1/${device}/metrics`, '')).status).toBe(401);
    const otherProject = await keyWith('services/devices.outpost/permissions/devices.get', 'projects/other');
    expect((await get(`/v1/${device}/metrics`, otherProject)).status).toBe(403);
    const reader = await keyWith('services/devices.outpost/permissions/devices.get', 'projects/acme');
    expect((await get(`/v1/${device}/metrics`, reader)).status).toBe(200);

    const bad = async (query: string, message: RegExp) => {
      const res = await get(`/v1/${device}/metrics?${query}`);
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({
        error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(message) },
      });
    };
    await bad('from=yesterday', /from must be an RFC 3339 time/);
    await bad('step=fast', /step must be a duration/);
    await bad('from=2025-01-02T00:00:00Z&to=2025-01-01T00:00:00Z', /from must be before to/);
    await bad('from=2024-01-01T00:00:00Z&to=2025-01-01T00:00:00Z&step=1s', /more than 11000 points/);
    await bad('limit=5', /unknown query parameter "limit"/);
    const missing = await get(`/v1/${parent}/devices/nope/metrics`);
    expect(missing.status).toBe(404);
  });

  it('drops the history of a deleted device', async (context) => {
    const other = perAttempt(context, `${parent}/devices/gw-2`);
    const otherAgent = await RawAgent.connect(server, await createDevice(server, other));
    otherAgent.send({ type: 'metrics', ...sample(5) });
    await expect.poll(async () => ((await get(`/v1/${other}/metrics`)).json()['points'] as Point[]).length).toBe(1);
    await otherAgent.close();
    await server.admin.delete(other);
    await server.admin.create(parent, 'devices', { name: other });
    await expect.poll(async () => ((await get(`/v1/${other}/metrics`)).json()['points'] as Point[]).length).toBe(0);
  });
});

describe('GET /metrics: Prometheus', () => {
  const gauge = (text: string, line: string): number | undefined => {
    const found = text.split('\n').find((l) => l.startsWith(`${line} `));
    return found === undefined ? undefined : Number(found.slice(line.length + 1));
  };

  it('exposes fleet and server gauges, to a key allowed to read them', async () => {
    expect((await get('/metrics', '')).status).toBe(401);
    const reader = await keyWith('services/devices.outpost/permissions/devices.get', '*');
    expect((await get('/metrics', reader)).status).toBe(403);
    const scraper = await keyWith('services/devices.outpost/permissions/metrics.get', '*');

    server.engine.resource('devices').patch(device, (d) => ({
      ...d,
      status: {
        ...(d['status'] as object),
        deviceInfo: { osVersion: '1.2.0' },
        conditions: [
          {
            type: 'OSReady',
            status: 'True',
            reason: 'Converged',
            message: '',
            lastTransitionTime: new Date().toISOString(),
          },
        ],
      },
    }));
    const watch = new AbortController();
    const watching = fetch(`${server.url}/v1/${parent}/devices:watch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
      body: '{}',
      signal: watch.signal,
    });
    const res = await watching;
    try {
      const scraped = await get('/metrics', scraper);
      expect(scraped.status).toBe(200);
      const text = scraped.text;
      expect(text).toContain('# TYPE outpost_devices gauge');
      const total = gauge(text, 'outpost_devices');
      expect(total).toBeGreaterThanOrEqual(2);
      expect(gauge(text, 'outpost_devices_connected')).toBe(1);
      expect(gauge(text, 'outpost_devices_by_os_version{os_version="1.2.0"}')).toBe(1);
      expect(gauge(text, 'outpost_devices_by_os_version{os_version="unknown"}')).toBe(total! - 1);
      expect(gauge(text, 'outpost_devices_by_os_ready_reason{reason="Converged"}')).toBe(1);
      expect(gauge(text, 'outpost_gateway_sessions')).toBe(1);
      expect(gauge(text, 'outpost_watch_streams')).toBe(1);
      expect(gauge(text, 'outpost_status_write_batches_total')).toBeGreaterThan(0);
      expect(gauge(text, 'outpost_artifact_downloads_total')).toBe(0);
      expect(text).toContain('process_resident_memory_bytes');
    } finally {
      watch.abort();
      await res.body?.cancel().catch(() => {});
    }
  });
});
