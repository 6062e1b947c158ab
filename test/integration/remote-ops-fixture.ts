/**
 * What the remote-operations integration tests share: a real control plane (in this process, on 127.0.0.1),
 * real droplet agents on the simulated (file) boot backend and the real `outpost` command line, both run from
 * their TypeScript sources through tsx (no build needed), the command line also on a pseudo-terminal.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Device } from '@outpost/shared';
import { TEST_ADMIN_KEY, startTestServer } from '../../control-plane/test/helpers/test-server.js';
import type { TestServer } from '../../control-plane/test/helpers/test-server.js';
import { provisionSimulatedDevice, simulatedDropletArgs } from './helpers/simulated-device.js';
import { waitForDevice } from './helpers/wait-for.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
const AGENT_MAIN = join(REPO, 'agent/src/main.ts');
const CLI_MAIN = join(REPO, 'control-plane/src/cli/main.ts');
/** by path, so that a child may run in any folder */
const TSX = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;

/** `node` arguments that run the `outpost` command line from its sources */
export const CLI_FROM_SOURCES: readonly string[] = ['--import', TSX, CLI_MAIN];

/** the environment of our child processes: tsx resolves @outpost/shared to its sources */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TSX_TSCONFIG_PATH: join(REPO, 'tsconfig.check.json'), ...extra };
  for (const key of Object.keys(env))
    if (key.startsWith('DROPLET_') || key.startsWith('OUTPOST_TEST_')) delete env[key];
  return env;
}

export interface Agent {
  child: ChildProcess;
  root: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export const online = (d: Device): boolean => d.status?.connectionStatus === 'CONNECTED';
export const offline = (d: Device): boolean => d.status?.connectionStatus === 'DISCONNECTED';

/** One test file's world: the server, a work folder, and every process and folder it started. */
export class RemoteOpsWorld {
  server!: TestServer;
  work!: string;
  private readonly agents: Agent[] = [];

  async start(heartbeatSeconds = 1): Promise<void> {
    this.server = await startTestServer({}, { heartbeatSeconds });
    this.work = mkdtempSync(join(tmpdir(), 'outpost-remote-ops-'));
  }

  async stop(): Promise<void> {
    // SIGTERM lets an agent stop its pods; one that does not end in time is killed
    await Promise.all(
      this.agents.splice(0).map(async (agent) => {
        const forced = setTimeout(() => agent.child.kill('SIGKILL'), 10_000);
        await agent.kill('SIGTERM');
        clearTimeout(forced);
      }),
    );
    killStrayWorkloads(this.work);
    await this.server.dispose();
    await rm(this.work, { recursive: true, force: true });
  }

  /** A folder of its own under the work folder. */
  folder(name: string): string {
    const dir = join(this.work, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  cliEnv(apiKey = TEST_ADMIN_KEY): Record<string, string> {
    return { OUTPOST_SERVER: this.server.url, OUTPOST_API_KEY: apiKey };
  }

  /** The whole environment of a command line run from its sources (CLI_FROM_SOURCES) against this server. */
  cliProcessEnv(apiKey = TEST_ADMIN_KEY): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(childEnv(this.cliEnv(apiKey)))) if (value !== undefined) env[key] = value;
    return env;
  }

  /** Creates the device, issues its credential and writes the configuration of a simulated device. */
  async provision(name: string): Promise<string> {
    const root = this.folder(`device-${name.split('/').at(-1)}`);
    await provisionSimulatedDevice(this.server.admin, name, root, this.server.url);
    return root;
  }

  /** Starts a droplet process for a provisioned device root. */
  startAgent(root: string): Agent {
    const child = spawn(process.execPath, ['--import', TSX, AGENT_MAIN, ...simulatedDropletArgs(root)], {
      cwd: REPO,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const agent: Agent = {
      child,
      root,
      output: () => output,
      exited,
      kill: async (signal = 'SIGTERM') => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        await exited;
      },
    };
    this.agents.push(agent);
    return agent;
  }

  /** Provisions a device, starts its agent and waits until it is Online. */
  async onlineDevice(name: string): Promise<Agent> {
    const agent = this.startAgent(await this.provision(name));
    // at load 20-30 a droplet started through tsx has printed nothing yet after 30 s
    await waitForDevice(this.server.admin, name, online, 60_000);
    return agent;
  }

  /** Runs `outpost <args>` to completion (stdin is not a terminal). */
  cli(args: readonly string[], options: { apiKey?: string; cwd?: string } = {}): Promise<CliResult> {
    return this.run(['--import', TSX, CLI_MAIN, ...args], options);
  }

  /** Starts `outpost <args>` and leaves it running (to interrupt it). */
  spawnCli(args: readonly string[]): ChildProcess {
    return spawn(process.execPath, ['--import', TSX, CLI_MAIN, ...args], {
      cwd: REPO,
      env: childEnv(this.cliEnv()),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  /**
   * Runs `outpost <args>` on a pseudo-terminal (util-linux `script`), typing `answer` once it asks; the result's
   * stdout is everything the terminal showed.
   */
  async cliOnTerminal(args: readonly string[], answer: string): Promise<CliResult> {
    const command = [process.execPath, '--import', TSX, CLI_MAIN, ...args].map(shellQuote).join(' ');
    const child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
      cwd: REPO,
      env: childEnv(this.cliEnv()),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let answered = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!answered && stdout.includes('Type yes')) {
        answered = true;
        child.stdin.write(`${answer}\n`);
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { code, stdout, stderr };
  }

  private async run(args: readonly string[], options: { apiKey?: string; cwd?: string }): Promise<CliResult> {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd ?? REPO,
      env: childEnv(this.cliEnv(options.apiKey)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { code, stdout, stderr };
  }
}

/**
 * Ends the pod processes of agents that were killed (a SIGKILLed agent cannot stop them): every process whose
 * OUTPOST_POD_DIR lies under `work`, with its process group.
 */
export function killStrayWorkloads(work: string): void {
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    } catch {
      continue;
    }
    const podDir = environ.split('\0').find((v) => v.startsWith('OUTPOST_POD_DIR='));
    if (podDir === undefined || !podDir.slice('OUTPOST_POD_DIR='.length).startsWith(work)) continue;
    try {
      process.kill(-Number(pid), 'SIGKILL');
    } catch {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

const shellQuote = (arg: string): string => `'${arg.replaceAll("'", "'\\''")}'`;
