import { describe, expect, it } from 'vitest';
import { registerDeviceCommands } from '../../src/cli/device-commands.js';
import { runCli, startRecordingServer } from './harness.js';

describe('outpost devices scp with a malformed device name', () => {
  it('names the device id and its rule, exits 2 and sends nothing', async () => {
    const server = await startRecordingServer((_req, res) => res.status(500).end());
    try {
      for (const [source, destination] of [
        ['./app.conf', 'projects/acme/regions/eu/devices/g:/outpost/data/'],
        ['projects/acme/regions/eu/devices/g:/var/log/syslog', './logs/'],
      ] as const) {
        const result = await runCli(['devices', 'scp', source, destination, '--server', server.url, '--key', 'k'], {
          register: (program, ctxFactory) => registerDeviceCommands(program, ctxFactory),
        });
        expect(result).toEqual({
          code: 2,
          stdout: '',
          stderr:
            'error: invalid device name "projects/acme/regions/eu/devices/g": device id "g" must match [a-z][a-z0-9-]{0,28}[a-z0-9]\n',
        });
      }
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
