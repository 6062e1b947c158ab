import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PodStatus, ServiceStatus } from '@outpost/shared';
import { builtDroplet } from '../helpers/built-droplet.js';
import { eventually } from '../helpers/eventually.js';
import { TestGateway } from '../helpers/test-gateway.js';
import type { GatewayConnection } from '../helpers/test-gateway.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const DEVICE = 'projects/p1/regions/eu/devices/edge-1';
const POD = 'projects/p1/regions/eu/pods/kiosk';

interface Agent {
  child: ChildProcess;
  output: () => string;
  /** its exit code, or the signal that ended it */
  exit: Promise<number | string | null>;
}

const agents: Agent[] = [];
const servicePids: number[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.child.kill('SIGKILL');
  // the services outlive their agents by design: end what the test left running
  for (const pid of servicePids.splice(0)) signal(-(processGroupOf(pid) ?? pid), 'SIGKILL');
});

/** The real droplet command, leading its own process group as under a shell or systemd (agent/dist/main.js). */
function startAgent(deviceRoot: string, server: string): Agent {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('DROPLET_')) delete env[key];
  const args = ['--device-root', deviceRoot, '--server', server, '--provisioning-token', 'prov-token'];
  args.push('--project', 'p1', '--region', 'eu', '--device-id', 'edge-1');
  const child = spawn(process.execPath, [builtDroplet(), ...args], {
    cwd: repoRoot,
    env,
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  const agent = { child, output: () => output, exit };
  agents.push(agent);
  return agent;
}

function registration(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ device: { name: DEVICE }, credential: 'device-cred' }));
  });
}

function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

function processGroupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

/** The last reported status of the pod's service `name`, once `where` holds for it. */
function reportedService(
  connection: GatewayConnection,
  where: (service: ServiceStatus) => boolean,
): Promise<ServiceStatus> {
  return eventually(() => {
    const reports = connection.received
      .filter((m) => m.type === 'podStatus')
      .flatMap((m) => m.pods as { name: string; status: PodStatus }[])
      .filter((p) => p.name === POD);
    const service = reports.at(-1)?.status.serviceStatuses?.find((s) => s.name === 'app');
    if (service === undefined || !where(service)) {
      throw new Error(`no matching report yet; last: ${JSON.stringify(service)}`);
    }
    return service;
  }, 20_000);
}

async function connect(gateway: TestGateway, index: number, agent: Agent): Promise<GatewayConnection> {
  const connection = await gateway.connection(index).catch((err: unknown) => {
    throw new Error(`${String(err)}\n${agent.output()}`);
  });
  await connection.waitFor('hello');
  connection.welcome();
  await connection.waitFor('getSpec');
  connection.send({
    type: 'spec',
    device: {
      name: DEVICE,
      spec: {},
      metadata: { generation: 1 },
      pods: [
        { name: POD, generation: 1, spec: { node: DEVICE, services: [{ name: 'app', command: ['sleep', '600'] }] } },
      ],
    },
  });
  return connection;
}

describe('workloads survive the agent (a real droplet child process)', () => {
  it('keeps a service running with its pid when the agent’s whole process group gets SIGTERM, and stops it on command', async () => {
    const gateway = await TestGateway.start({ onRequest: registration });
    try {
      const deviceRoot = await tempDir();
      const first = startAgent(deviceRoot, gateway.url);
      const before = await reportedService(await connect(gateway, 0, first), (s) => s.state === 'RUNNING');
      const pid = before.pid;
      if (pid === undefined) throw new Error('no pid reported');
      servicePids.push(pid);

      // what `systemctl restart` or a terminal's Ctrl-C does: the signal goes to every process of the agent's group
      expect(signal(-(first.child.pid ?? 0), 'SIGTERM')).toBe(true);
      // 0 after a clean stop; the default action of SIGTERM when execa's signal-exit re-raises it while a command of
      // the agent runs (the agent's own handler is a once-listener): either way the agent is gone, the service is not
      expect([0, 'SIGTERM'], first.output()).toContain(await first.exit);
      expect(signal(pid, 0)).toBe(true);

      const second = startAgent(deviceRoot, gateway.url);
      const connection = await connect(gateway, 1, second);
      const after = await reportedService(connection, (s) => s.state === 'RUNNING');
      expect(after).toMatchObject({ pid, startTime: before.startTime, state: 'RUNNING' });

      connection.send({ type: 'command', id: 'stop-1', command: 'pods.control', args: { pod: POD, action: 'STOP' } });
      await connection.waitFor('result', (m) => m.id === 'stop-1' && m.ok === true);
      await eventually(() => expect(processGroupOf(pid)).toBeUndefined());
      await reportedService(connection, (s) => s.state === 'TERMINATED' && s.reason === 'Stopped');
      second.child.kill('SIGTERM');
      await second.exit;
    } finally {
      await gateway.close();
    }
  }, 60_000);
});
