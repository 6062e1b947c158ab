import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransferDecoder, TreeWriter, encodeTree, placeEntry, prepareTreeSource } from '@outpost/shared';
import type { Channel } from '@outpost/shared';
import { downloadTree, uploadTree } from '../../src/transfer/transfer-client.js';
import { TEST_ADMIN_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { ScriptedAgent, createDevice } from './scripted-agent.js';

const DEVICE = 'projects/ops/regions/eu/devices/client-box';
let server: TestServer;
let agent: ScriptedAgent;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  agent = await ScriptedAgent.connect(server.url, await createDevice(server.admin, DEVICE));
  dir = mkdtempSync(join(tmpdir(), 'outpost-transfer-client-'));
});
afterAll(async () => {
  await agent.close();
  await server.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('the command line transfer client', () => {
  it('uploads a file spanning many reused chunk buffers, every byte intact while a slow device holds it back', async () => {
    const content = randomBytes(6 * 1024 * 1024 + 777);
    const file = join(dir, 'up.bin');
    writeFileSync(file, content);
    const received = new Promise<{ sha: string; bytes: number }>((resolve, reject) => {
      agent.onChannel('transfer.upload', (channel: Channel, args) => {
        const { path } = args as { path: string };
        void (async () => {
          const decoder = new TransferDecoder();
          const hash = createHash('sha256');
          let bytes = 0;
          let pieces = 0;
          for await (const piece of channel) {
            // a slow disk: the upload waits on the window, the socket, and the client's buffers
            if (++pieces % 4 === 0) await pause(2);
            for (const event of decoder.push(piece)) {
              if (event.kind !== 'fileData') continue;
              hash.update(event.bytes);
              bytes += event.bytes.length;
            }
          }
          decoder.finish();
          await channel.write(Buffer.from(JSON.stringify({ files: 1, bytes, destination: `${path}up.bin` })));
          await channel.end();
          resolve({ sha: hash.digest('hex'), bytes });
        })().catch(reject);
      });
    });
    const summary = await uploadTree(
      { server: server.url, apiKey: TEST_ADMIN_KEY },
      DEVICE,
      '/in/',
      await prepareTreeSource(file, false),
    );
    expect(summary).toEqual({ files: 1, bytes: content.length, destination: '/in/up.bin' });
    expect(await received).toEqual({ sha: sha256(content), bytes: content.length });
  });

  it('downloads into a tree writer: bytes, mode and name as the device sent them', async () => {
    const content = randomBytes(3 * 1024 * 1024 + 99);
    const source = join(dir, 'down-source.bin');
    writeFileSync(source, content);
    chmodSync(source, 0o640);
    agent.onChannel('transfer.download', (channel: Channel) => {
      void (async () => {
        for await (const piece of encodeTree(await prepareTreeSource(source, false))) await channel.write(piece);
        await channel.end();
      })();
      return { kind: 'file', name: 'down-source.bin', size: content.length };
    });
    const writer = new TreeWriter({ placeRoot: async (root) => placeEntry(join(dir, 'back.bin'), root.name, false) });
    const summary = await downloadTree(
      { server: server.url, apiKey: TEST_ADMIN_KEY },
      DEVICE,
      '/data/down-source.bin',
      false,
      writer,
    );
    expect(summary).toMatchObject({ files: 1, bytes: content.length, destination: join(dir, 'back.bin') });
    expect(sha256(readFileSync(join(dir, 'back.bin')))).toBe(sha256(content));
    expect(statSync(join(dir, 'back.bin')).mode & 0o777).toBe(0o640);
  });
});
