import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevice } from '../healthchecks/helpers/raw-agent.js';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { AgentSocket } from './helpers/agent-socket.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.dispose();
});

describe("an agent's getSpec", () => {
  it('right after its hello is answered by the spec the hello brought; a later one gets the spec again', async (context) => {
    const name = perAttempt(context, 'projects/p1/regions/eu/devices/asks');
    const credential = await createDevice(server, name);
    const agent = await AgentSocket.connect(server.url, credential);
    try {
      await agent.next('spec');
      agent.send({ type: 'getSpec' }); // as the agent does after its first welcome
      // messages of one link are handled in order: once this one is refused, the getSpec was handled
      agent.send({ type: 'no-such-message' });
      await agent.next('error');
      expect(agent.received.filter((m) => m.type === 'spec')).toHaveLength(1);

      agent.send({ type: 'getSpec' }); // its periodic refresh
      const spec = await agent.next('spec', 2);
      expect(spec['device']).toMatchObject({ name });
    } finally {
      agent.close();
    }
  });
});
