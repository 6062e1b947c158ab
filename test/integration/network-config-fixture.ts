/**
 * A simulated device network for the network dead-man switch tests: the agent reaches the control plane only
 * through a TCP relay (its uplink), and a stand-in `networkctl` inside the device's --system-root decides, from the
 * systemd-networkd files in force, whether that uplink still carries traffic. A configuration that leaves the uplink
 * without an address in its subnet takes the relay down (open connections cut, new ones refused) until a later
 * `networkctl reload` takes up files that work again.
 */
import { createServer as createHttpServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import { createConnection, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The relay between the agent and the control plane, with the link state the stand-in networkctl sets. */
export class SimulatedUplink {
  /** connections the relay let through (each agent connection attempt that reached the control plane) */
  accepted = 0;
  private up = true;
  private readonly open = new Set<Socket>();
  private readonly relay: Server;
  private readonly control: HttpServer;

  private constructor(private readonly targetPort: number) {
    this.relay = createServer((socket) => this.pass(socket));
    this.control = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (body !== 'up' && body !== 'down') {
          res.writeHead(400).end('say up or down\n');
          return;
        }
        this.setUp(body === 'up');
        res.writeHead(204).end();
      });
    });
  }

  static async start(targetPort: number): Promise<SimulatedUplink> {
    const uplink = new SimulatedUplink(targetPort);
    await Promise.all([listen(uplink.relay), listen(uplink.control)]);
    return uplink;
  }

  /** the control plane's URL as the device sees it: through the relay */
  get serverUrl(): string {
    return `http://127.0.0.1:${portOf(this.relay)}`;
  }

  /** where the stand-in networkctl reports the link state */
  get controlUrl(): string {
    return `http://127.0.0.1:${portOf(this.control)}/link`;
  }

  get isUp(): boolean {
    return this.up;
  }

  setUp(up: boolean): void {
    this.up = up;
    if (!up) for (const socket of this.open) socket.destroy();
  }

  async close(): Promise<void> {
    for (const socket of this.open) socket.destroy();
    this.control.closeAllConnections();
    await Promise.all([closeServer(this.relay), closeServer(this.control)]);
  }

  private pass(socket: Socket): void {
    if (!this.up) {
      socket.destroy();
      return;
    }
    this.accepted += 1;
    const upstream = createConnection(this.targetPort, '127.0.0.1');
    for (const end of [socket, upstream]) {
      this.open.add(end);
      end.on('error', () => undefined);
      end.on('close', () => {
        this.open.delete(end);
        socket.destroy();
        upstream.destroy();
      });
    }
    socket.pipe(upstream);
    upstream.pipe(socket);
  }
}

/** One line of the stand-in networkctl's log ({system_root}/var/log/networkctl.jsonl). */
export interface NetworkctlRun {
  at: number;
  argv: string[];
  /** the uplink's state after the files in force were taken up (reload and reconfigure only) */
  link?: 'up' | 'down';
}

export const UPLINK = 'eth0';
/** the subnet the uplink must keep an address in (or DHCP) for the relay to carry traffic */
export const UPLINK_SUBNET_PREFIX = '10.0.2.';
/** the image's own network file: DHCP on every ethernet */
export const FACTORY_NETWORK_FILE = '/etc/systemd/network/10-dhcp.network';
const FACTORY_NETWORK = '[Match]\nName=en* eth*\n\n[Network]\nDHCP=ipv4\n';

/**
 * Stand-in networkctl (CommonJS, run by the agent from the system root): logs its argv and, for reload and
 * reconfigure, takes up the .network files the way systemd-networkd picks them (the first file in lexical order
 * whose [Match] Name= matches the uplink), then reports the uplink up (DHCP, or an address in the subnet) or down.
 */
const STAND_IN_NETWORKCTL = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const root = path.resolve(__dirname, '../..');
const settings = JSON.parse(fs.readFileSync(path.join(root, 'etc/stand-in-network.json'), 'utf8'));
const argv = process.argv.slice(2);

function linkState() {
  const dir = path.join(root, 'etc/systemd/network');
  const names = fs.readdirSync(dir).filter((name) => name.endsWith('.network')).sort();
  for (const name of names) {
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    const values = (key) => [...text.matchAll(new RegExp('^' + key + '=(.*)$', 'gm'))].map((m) => m[1].trim());
    const patterns = values('Name').flatMap((value) => value.split(/\s+/));
    const glob = (pattern) => new RegExp('^' + pattern.replace(/[.+?^$()|[\]\\{}]/g, '\\$&').replace(/\*/g, '.*') + '$');
    if (!patterns.some((pattern) => glob(pattern).test(settings.uplink))) continue;
    const dhcp = values('DHCP').some((value) => value === 'yes' || value === 'ipv4');
    const inSubnet = values('Address').some((address) => address.startsWith(settings.subnetPrefix));
    return dhcp || inSubnet ? 'up' : 'down';
  }
  return 'down';
}

async function main() {
  const entry = { at: Date.now(), argv };
  if (argv[0] === 'reload' || argv[0] === 'reconfigure') {
    entry.link = linkState();
    const res = await fetch(settings.controlUrl, { method: 'POST', body: entry.link });
    if (res.status !== 204) throw new Error('the simulated network answered ' + res.status);
  }
  fs.mkdirSync(path.join(root, 'var/log'), { recursive: true });
  fs.appendFileSync(path.join(root, 'var/log/networkctl.jsonl'), JSON.stringify(entry) + '\n');
}
main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(String(err) + '\n');
    process.exit(1);
  },
);
`;

/**
 * A system root for a simulated device: the image's DHCP file, the uplink under /sys/class/net (so the agent
 * reconfigures it), and the stand-in networkctl wired to `uplink`.
 */
export async function makeSystemRoot(root: string, uplink: SimulatedUplink): Promise<void> {
  await mkdir(join(root, 'etc/systemd/network'), { recursive: true });
  await mkdir(join(root, 'sys/class/net', UPLINK), { recursive: true });
  await mkdir(join(root, 'usr/bin'), { recursive: true });
  await writeFile(join(root, FACTORY_NETWORK_FILE), FACTORY_NETWORK);
  await writeFile(
    join(root, 'etc/stand-in-network.json'),
    JSON.stringify({ uplink: UPLINK, subnetPrefix: UPLINK_SUBNET_PREFIX, controlUrl: uplink.controlUrl }),
  );
  const networkctl = join(root, 'usr/bin/networkctl');
  await writeFile(networkctl, `#!${process.execPath}\n${STAND_IN_NETWORKCTL}`);
  await chmod(networkctl, 0o755);
}

/** What the stand-in networkctl was asked so far. */
export async function networkctlRuns(root: string): Promise<NetworkctlRun[]> {
  let text: string;
  try {
    text = await readFile(join(root, 'var/log/networkctl.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as NetworkctlRun);
}

function listen(server: Server | HttpServer): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}

function portOf(server: Server | HttpServer): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the server is not listening');
  return address.port;
}

function closeServer(server: Server | HttpServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
