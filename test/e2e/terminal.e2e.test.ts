import { describe, expect, it } from 'vitest';
import { useScenario } from './harness/scenario.js';

/**
 * Issue 21 on a real guest: `outpost devices ssh` runs a command on the device over its own connection (the
 * agent's node-pty and shell, as the image's .deb installed them) and exits with the command's status.
 */
describe('remote terminal through the command line', () => {
  const scenario = useScenario();

  it('ssh -- systemctl is-active droplet prints active', async () => {
    const device = await scenario.device('terminal');
    await device.powerOn();
    const cli = scenario.controlPlane.cli;

    const started = Date.now();
    const active = await cli(['devices', 'ssh', device.name, '--', 'systemctl', 'is-active', 'droplet']);
    scenario.timings.since('ssh -- systemctl is-active droplet', started);
    expect(active.stdout).toBe('active\n');
    expect(active.code).toBe(0);

    // a pseudo-terminal on the guest (node-pty's addon loads there): stty answers the size asked for
    const sized = await cli(['devices', 'ssh', '-t', device.name, '--', 'stty', 'size']);
    expect(sized.stdout.trim()).toMatch(/^\d+ \d+$/);
  });
});
