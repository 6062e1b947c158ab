/**
 * What the transport tests share: a private CA and server certificates (openssl), a real control plane in this
 * process, an admin client that trusts the CA, and real droplet processes run from their sources through tsx.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OutpostClient } from '@outpost/shared';
import type { Device } from '@outpost/shared';
import { fetchTrusting } from '../../../control-plane/src/cli/trusted-ca.js';
import type { ServerConfig } from '../../../control-plane/src/server/config.js';
import { TEST_ADMIN_KEY, startTestServer } from '../../../control-plane/test/helpers/test-server.js';
import type { TestServer } from '../../../control-plane/test/helpers/test-server.js';
import { REPO } from './processes.js';
import { createTestCa, issueServerCertificate } from './test-certificates.js';
import type { ServerCertificate, TestCa } from './test-certificates.js';
import { waitForDevice } from './wait-for.js';

const AGENT_MAIN = join(REPO, 'agent/src/main.ts');
const TSX = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;

export const online = (d: Device): boolean => d.status?.connectionStatus === 'CONNECTED';

export interface AgentProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export class TlsWorld {
  work!: string;
  ca!: TestCa;
  server!: TestServer;
  /** the control plane's admin API, trusting the test CA */
  admin!: OutpostClient;
  private readonly agents: AgentProcess[] = [];

  /** Makes the CA; the server is started by startServer (with TLS or without). */
  prepare(): void {
    this.work = mkdtempSync(join(tmpdir(), 'outpost-tls-world-'));
    chmodSync(this.work, 0o755); // nginx's workers (an unprivileged user) read below it
    this.ca = createTestCa(this.work);
  }

  certificate(name: string): ServerCertificate {
    return issueServerCertificate(this.ca, this.work, name);
  }

  async startServer(config: Partial<ServerConfig> = {}): Promise<void> {
    this.server = await startTestServer({}, { heartbeatSeconds: 1, config });
    this.admin = new OutpostClient({
      server: this.server.url,
      apiKey: TEST_ADMIN_KEY,
      fetch: fetchTrusting(this.ca.pem),
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.agents.splice(0).map((agent) => agent.stop()));
    await this.server?.dispose();
    await rm(this.work, { recursive: true, force: true });
  }

  /** Creates the device and writes the root of a device that reaches the control plane at `serverUrl`. */
  async provision(name: string, serverUrl: string): Promise<string> {
    const parent = name.slice(0, name.indexOf('/devices/'));
    await this.admin.create(parent, 'devices', { name });
    const { credential } = await this.admin.request<{ credential: string }>('POST', `/v1/${name}:issueCredential`, {
      body: {},
    });
    const root = join(this.work, `device-${name.split('/').at(-1)}`);
    mkdirSync(join(root, 'config'), { recursive: true });
    await writeFile(join(root, 'config', 'credential'), `${credential}\n`, { mode: 0o600 });
    await writeFile(join(root, 'config', 'droplet.json'), JSON.stringify({ server: serverUrl, deviceName: name }));
    return root;
  }

  /** Starts a droplet (no OS management) for a device root, with extra flags such as --ca-file. */
  startAgent(root: string, flags: readonly string[] = []): AgentProcess {
    const env: NodeJS.ProcessEnv = { ...process.env, TSX_TSCONFIG_PATH: join(REPO, 'tsconfig.check.json') };
    for (const key of Object.keys(env)) if (key.startsWith('DROPLET_') || key.startsWith('OUTPOST_')) delete env[key];
    const child = spawn(
      process.execPath,
      ['--import', TSX, AGENT_MAIN, '--device-root', root, '--metrics-interval', '1', ...flags],
      { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const agent: AgentProcess = {
      child,
      output: () => output,
      exited,
      stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const forced = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.kill('SIGTERM');
        await exited;
        clearTimeout(forced);
      },
    };
    this.agents.push(agent);
    return agent;
  }

  waitOnline(name: string): Promise<Device> {
    return waitForDevice(this.admin, name, online, 30_000);
  }
}
