import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@outpost/shared';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { widgetDefinition } from '../helpers/widgets.js';
import type { Widget } from '../helpers/widgets.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ resources: [{ def: widgetDefinition }] });
});
afterAll(async () => server.dispose());

describe('compare-and-swap under concurrency', () => {
  it('8 concurrent clients incrementing a counter with CAS never lose an update', async (context) => {
    const name = perAttempt(context, 'projects/cas/regions/r1/widgets/counter');
    await server.admin.create('projects/cas/regions/r1', 'widgets', { name, spec: { size: 0 } });
    const perClient = 25;
    let conflicts = 0;
    const client = async (): Promise<void> => {
      const api = server.clientWith('test-admin-key-0123456789abcdef-0123');
      for (let done = 0; done < perClient;) {
        const current = await api.get<Widget>(name);
        const value = current.spec?.size ?? 0;
        try {
          await api.update(
            { name, spec: { size: value + 1 } },
            { updateMask: 'spec.size', cas: { conditionalState: { spec: { size: value } }, fieldMask: 'spec.size' } },
          );
          done++;
        } catch (err) {
          if (!(err instanceof ApiError) || err.status !== 'ABORTED') throw err;
          conflicts++;
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
    const final = await server.admin.get<Widget>(name);
    expect(final.spec?.size).toBe(8 * perClient);
    expect(final.metadata?.generation).toBe(8 * perClient + 1);
    expect(conflicts).toBeGreaterThan(0); // the clients really raced
  }, 60_000);
});
