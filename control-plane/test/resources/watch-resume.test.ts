import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { widgetDefinition } from '../helpers/widgets.js';
import type { Widget } from '../helpers/widgets.js';

/**
 * Spec 001 Events: a stateless watch resumed from a resume token (or a starting time) sends what the live
 * stream would have sent meanwhile: only changes within the parent, the filter and the mask, each resource
 * once (its last message), nothing else.
 */

interface Message {
  current?: { widget: Widget };
  removed?: { name: string };
}
interface WireResponse {
  widgetChanges: Message[];
  isCurrent: boolean;
  resumeToken: string;
  snapshotSize: number;
  isSoftReset: boolean;
  isHardReset: boolean;
}

const changesOf = (responses: WireResponse[]): Message[] => responses.flatMap((r) => r.widgetChanges);

/** Reads a stream in the background; `until` waits for a message that satisfies a test. */
function follow(stream: AsyncGenerator<WireResponse>) {
  const got: WireResponse[] = [];
  let failure: unknown;
  const waiters: (() => void)[] = [];
  void (async () => {
    try {
      for await (const response of stream) {
        got.push(response);
        for (const wake of waiters.splice(0)) wake();
      }
    } catch (err) {
      failure = err;
    }
  })();
  const until = async (test: (all: WireResponse[]) => boolean, timeoutMs = 10_000): Promise<WireResponse[]> => {
    const deadline = Date.now() + timeoutMs;
    while (!test(got)) {
      if (failure !== undefined) throw failure as Error;
      if (Date.now() > deadline) throw new Error(`watch: not seen within ${timeoutMs} ms: ${JSON.stringify(got)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return got;
  };
  return { got, until };
}

/** The responses of a stream until (and with) the first current one. */
async function firstCurrent(stream: AsyncGenerator<WireResponse>): Promise<WireResponse[]> {
  const out: WireResponse[] = [];
  for await (const response of stream) {
    out.push(response);
    if (response.isCurrent) return out;
  }
  return out;
}

/** Each resource's last message, in the order of those last messages: what a resume must send. */
function collapse(messages: readonly Message[]): Message[] {
  const last = new Map<string, Message>();
  for (const message of messages) {
    const name = 'current' in message ? message.current!.widget.name : message.removed!.name;
    last.delete(name);
    last.set(name, message);
  }
  return [...last.values()];
}

describe('resuming a stateless watch', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ resources: [{ def: widgetDefinition }] });
  });
  afterAll(async () => server.dispose());

  it('sends nothing of other parents nor of changes outside the mask, to a key scoped to its project', async () => {
    const widgets = server.engine.resource('widgets');
    const mine = 'projects/pa/regions/r1';
    const theirs = 'projects/pb/regions/r1';
    widgets.put({ name: `${mine}/widgets/painted`, spec: { color: 'red', size: 1 } });
    widgets.put({ name: `${mine}/widgets/resized`, spec: { color: 'red', size: 1 } });
    widgets.put({ name: `${theirs}/widgets/secret-a`, spec: { color: 'red' } });
    const { secret } = await server.admin.request<{ secret: string }>('POST', '/v1/apiKeys', {
      body: { displayName: 'project pa', grants: [{ permission: '*', scope: 'projects/pa' }] },
    });
    const client = server.clientWith(secret);
    const body = { type: 'STATELESS', fieldMask: 'spec.color' };
    const path = `/v1/${mine}/widgets:watch`;
    const first = new AbortController();
    const snapshot = await firstCurrent(client.watch<WireResponse>(path, body, first.signal));
    first.abort();
    const token = snapshot.at(-1)!.resumeToken;
    const startingTime = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5)); // the changes below come after startingTime

    widgets.patch(`${mine}/widgets/resized`, (d) => ({ ...d, spec: { ...d['spec']!, size: 2 } })); // outside the mask
    widgets.put({ name: `${theirs}/widgets/secret-b`, spec: { color: 'blue' } });
    widgets.patch(`${theirs}/widgets/secret-a`, (d) => ({ ...d, spec: { color: 'green' } }));
    widgets.remove(`${theirs}/widgets/secret-b`);
    widgets.patch(`${mine}/widgets/painted`, (d) => ({ ...d, spec: { color: 'blue', size: 1 } }));

    const expected = [{ current: { widget: { name: `${mine}/widgets/painted`, spec: { color: 'blue' } } } }];
    for (const from of [{ resumeToken: token }, { startingTime }]) {
      const controller = new AbortController();
      const resumed = await firstCurrent(client.watch<WireResponse>(path, { ...body, ...from }, controller.signal));
      controller.abort();
      expect(changesOf(resumed), JSON.stringify(from)).toEqual(expected);
      expect(resumed.some((r) => r.isHardReset || r.isSoftReset)).toBe(false);
    }
  });

  const shapes = [
    { filter: 'spec.color = "red"', fieldMask: 'spec.color,displayName' },
    { filter: 'spec.size > 3' },
    { fieldMask: 'spec.size' },
    { filter: 'spec.color != "green" AND displayName = "d1"', fieldMask: 'spec.enabled' },
    {},
  ];
  for (const [index, shape] of shapes.entries()) {
    it(`sends, from any resume token, what the live stream sent since, collapsed (${JSON.stringify(shape)})`, async () => {
      const widgets = server.engine.resource('widgets');
      const parent = `projects/eq${index}/regions/r1`;
      const other = `projects/eq${index}/regions/r2`;
      const random = seeded(1000 + index);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const names = [...['a', 'b', 'c', 'd', 'e', 'f'].map((id) => `${parent}/widgets/w${id}`), `${other}/widgets/wx`];
      const colors = ['red', 'blue', 'green'] as const;
      const operate = (): void => {
        const name = pick(names);
        const stored = widgets.find(name) as Widget | undefined;
        const roll = random();
        if (!stored || roll < 0.15) {
          widgets.put({
            name,
            displayName: pick(['d1', 'd2']),
            spec: { color: pick(colors), size: Math.floor(random() * 8), enabled: random() < 0.5 },
          });
        } else if (roll < 0.25) {
          widgets.remove(name);
        } else if (roll < 0.45) {
          widgets.patch(name, (d) => ({ ...d, spec: { ...(d['spec'] as object), color: pick(colors) } }));
        } else if (roll < 0.65) {
          widgets.patch(name, (d) => ({ ...d, spec: { ...(d['spec'] as object), size: Math.floor(random() * 8) } }));
        } else if (roll < 0.8) {
          widgets.patch(name, (d) => ({ ...d, displayName: pick(['d1', 'd2']) }));
        } else if (roll < 0.9) {
          widgets.patch(name, (d) => ({ ...d, spec: { ...(d['spec'] as object), enabled: random() < 0.5 } }));
        } else {
          widgets.patch(name, (d) => ({ ...d, status: { counter: Math.floor(random() * 100) } })); // outside any mask
        }
      };
      for (let i = 0; i < 20; i++) operate();

      const path = `/v1/${parent}/widgets:watch`;
      const body = { type: 'STATELESS', ...shape };
      const live = new AbortController();
      const stream = follow(server.admin.watch<WireResponse>(path, body, live.signal));
      await stream.until((all) => all.some((r) => r.snapshotSize >= 0));
      const tokens: { token: string; seen: number }[] = [];
      const marker = `${parent}/widgets/zz-marker`;
      for (let round = 0; round < 6; round++) {
        const at = stream.got.length;
        tokens.push({ token: stream.got.findLast((r) => r.isCurrent)!.resumeToken, seen: at });
        const writes = 5 + Math.floor(random() * 10);
        if (round % 2 === 0) server.engine.transaction(() => Array.from({ length: writes }, operate));
        else for (let i = 0; i < writes; i++) operate();
        // changes every shape sends, to know the live stream has taken everything before them
        widgets.remove(marker);
        widgets.put({ name: marker, displayName: 'd1', spec: { color: 'red', size: 7 } });
        await stream.until((all) =>
          changesOf(all.slice(at)).some((m) => 'current' in m && m.current?.widget.name === marker),
        );
      }
      live.abort();

      for (const { token, seen } of tokens) {
        const sentSince = changesOf(stream.got.slice(seen));
        const controller = new AbortController();
        const resumed = await firstCurrent(
          server.admin.watch<WireResponse>(path, { ...body, resumeToken: token }, controller.signal),
        );
        controller.abort();
        expect(changesOf(resumed)).toEqual(collapse(sentSince));
      }
    });
  }
});

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
