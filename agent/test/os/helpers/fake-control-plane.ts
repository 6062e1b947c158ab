import { WebSocket, WebSocketServer } from 'ws';
import { AGENT_CONNECT_PATH, mergeReportedStatus } from '@outpost/shared';
import type { Condition, DesiredDevice, OsImage, ReportedStatus } from '@outpost/shared';
import { eventually } from '../../helpers/eventually.js';
import { ArtifactServer } from './artifact-server.js';

export const DEVICE_NAME = 'projects/p/regions/r/devices/d1';
export const DEVICE_CREDENTIAL = 'device-credential';

/** One status message as the server received it (the agent sends its whole status each time). */
export type StatusMessage = ReportedStatus & { seq?: number };

/**
 * A tiny control plane on 127.0.0.1 speaking the real agent protocol: welcome, spec push and `getSpec`,
 * status; plus `/v1/artifacts/<sha256>` downloads (ArtifactServer). It keeps every status and hello.
 */
export class FakeControlPlane {
  readonly statuses: StatusMessage[] = [];
  /** each hello, with when it arrived (epoch ms) */
  readonly hellos: { bootId: string; agentVersion: string; receivedAtMs: number }[] = [];
  status: ReportedStatus = {};
  private generation = 1;
  private device: DesiredDevice = { name: DEVICE_NAME, spec: {}, metadata: { generation: 1 } };
  private readonly sockets = new Set<WebSocket>();

  private constructor(
    readonly artifacts: ArtifactServer,
    private readonly wss: WebSocketServer,
  ) {}

  static async start(): Promise<FakeControlPlane> {
    const artifacts = await ArtifactServer.start();
    const wss = new WebSocketServer({ noServer: true });
    const plane = new FakeControlPlane(artifacts, wss);
    artifacts.httpServer.on('upgrade', (request, socket, head) => {
      const authorized = request.headers.authorization === `Bearer ${DEVICE_CREDENTIAL}`;
      if (!request.url?.startsWith(AGENT_CONNECT_PATH) || !authorized) {
        socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => plane.accept(ws));
    });
    return plane;
  }

  get url(): string {
    return this.artifacts.url;
  }

  /** Writes spec.osVersion (and the image the server resolved for it, and other spec members) and pushes the spec. */
  setOsVersion(osVersion: string | undefined, osImage?: OsImage, otherSpec: Record<string, unknown> = {}): void {
    this.generation += 1;
    this.device = {
      name: DEVICE_NAME,
      spec: osVersion === undefined ? otherSpec : { ...otherSpec, osVersion },
      metadata: { generation: this.generation },
      ...(osImage === undefined ? {} : { osImage }),
    };
    for (const socket of this.sockets) send(socket, { type: 'spec', device: this.device });
  }

  /** Publishes an image's content as an artifact. */
  publish(image: OsImage, content: Buffer): void {
    this.artifacts.put(image.sha256, content);
  }

  get osReady(): Condition | undefined {
    return this.status.conditions?.find((c) => c.type === 'OSReady');
  }

  /** Waits until the latest status satisfies `check` (which throws or returns false otherwise). */
  async waitForStatus(
    describe: string,
    check: (status: ReportedStatus, osReady: Condition | undefined) => boolean,
    timeoutMs = 20_000,
  ): Promise<ReportedStatus> {
    return eventually(() => {
      if (!check(this.status, this.osReady)) {
        throw new Error(
          `waiting for ${describe}; OSReady is ${JSON.stringify(this.osReady)}, osVersion ${this.status.deviceInfo?.osVersion}`,
        );
      }
      return this.status;
    }, timeoutMs);
  }

  /** Waits for OSReady with `reason` (and a message matching `message`). */
  waitForOsReady(reason: string, message?: RegExp, timeoutMs?: number): Promise<ReportedStatus> {
    return this.waitForStatus(
      `OSReady ${reason}${message === undefined ? '' : ` ${String(message)}`}`,
      (_status, osReady) => osReady?.reason === reason && (message === undefined || message.test(osReady.message)),
      timeoutMs,
    );
  }

  /** Every OSReady condition reported, in order, without repeats. */
  osReadyHistory(): string[] {
    const history: string[] = [];
    for (const status of this.statuses) {
      const osReady = status.conditions?.find((c) => c.type === 'OSReady');
      if (osReady === undefined) continue;
      const entry = `${osReady.status}/${osReady.reason}: ${osReady.message}`;
      if (history.at(-1) !== entry) history.push(entry);
    }
    return history;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    this.wss.close();
    await this.artifacts.close();
  }

  private accept(socket: WebSocket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
      switch (message['type']) {
        case 'hello':
          this.hellos.push({
            bootId: String(message['bootId']),
            agentVersion: String(message['agentVersion']),
            receivedAtMs: Date.now(),
          });
          send(socket, {
            type: 'welcome',
            deviceName: DEVICE_NAME,
            heartbeatSeconds: 30,
            serverTime: new Date().toISOString(),
          });
          return;
        case 'getSpec':
          send(socket, { type: 'spec', device: this.device });
          return;
        case 'status': {
          const { type: _type, ...status } = message;
          this.statuses.push(status as StatusMessage);
          this.status = mergeReportedStatus(this.status, status as ReportedStatus);
          return;
        }
        default:
          return;
      }
    });
  }
}

function send(socket: WebSocket, message: object): void {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}
