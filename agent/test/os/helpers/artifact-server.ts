import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedRequest {
  path: string;
  authorization?: string;
  range?: string;
  ifRange?: string;
  status: number;
}

/** How the next GET answers go wrong (each applies once, in order). */
export type Fault =
  /** the connection is destroyed after this many body bytes */
  | { dropAfter: number }
  /** answered with this status and a JSON error */
  | { status: number }
  /** answered whole, whatever Range asks (as for an If-Range that does not match) */
  | { ignoreRange: true }
  /** this many body bytes, then nothing until the connection is closed */
  | { stallAfter: number };

/**
 * Artifacts over real HTTP on 127.0.0.1, answered as the control plane does (`/v1/artifacts/<sha256>`:
 * ETag `"<sha256>"`, `Range: bytes=N-` → 206 + Content-Range, `If-Range`, 416 past the end).
 */
export class ArtifactServer {
  readonly requests: ServedRequest[] = [];
  private readonly artifacts = new Map<string, Buffer>();
  private readonly faults: Fault[] = [];
  /** bytes of body sent, all requests together */
  bytesServed = 0;

  private constructor(private readonly server: Server) {}

  static async start(
    handleOther?: (request: IncomingMessage, response: ServerResponse) => void,
  ): Promise<ArtifactServer> {
    const server = createServer();
    const self = new ArtifactServer(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (request.url?.startsWith('/v1/artifacts/')) self.answer(request, response);
      else if (handleOther !== undefined) handleOther(request, response);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return self;
  }

  get httpServer(): Server {
    return this.server;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Serves `content` under `sha256` (which may deliberately not be its hash). */
  put(sha256: string, content: Buffer): void {
    this.artifacts.set(sha256, content);
  }

  fault(fault: Fault): void {
    this.faults.push(fault);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    const sha256 = (request.url ?? '').slice('/v1/artifacts/'.length);
    const served: ServedRequest = { path: request.url ?? '', status: 200 };
    if (request.headers.authorization !== undefined) served.authorization = request.headers.authorization;
    if (request.headers.range !== undefined) served.range = request.headers.range;
    const ifRange = request.headers['if-range'];
    if (typeof ifRange === 'string') served.ifRange = ifRange;
    this.requests.push(served);
    const respond = (status: number, headers: Record<string, string>, body?: Buffer): void => {
      served.status = status;
      response.writeHead(status, headers);
      response.end(body);
    };

    const content = this.artifacts.get(sha256);
    if (content === undefined) {
      respond(
        404,
        { 'content-type': 'application/json' },
        Buffer.from(JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', message: `no artifact ${sha256}` } })),
      );
      return;
    }
    const fault = this.faults.shift();
    if (fault !== undefined && 'status' in fault) {
      respond(
        fault.status,
        { 'content-type': 'application/json' },
        Buffer.from(JSON.stringify({ error: { code: fault.status, status: 'UNAVAILABLE', message: 'injected' } })),
      );
      return;
    }
    const etag = `"${sha256}"`;
    let start = 0;
    const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? '');
    const ignoreRange = fault !== undefined && 'ignoreRange' in fault;
    if (range !== null && !ignoreRange && (ifRange === undefined || ifRange === etag)) {
      start = Number(range[1]);
      if (start >= content.length) {
        respond(416, { 'content-range': `bytes */${content.length}` });
        return;
      }
    }
    const body = content.subarray(start);
    const headers: Record<string, string> = {
      etag,
      'accept-ranges': 'bytes',
      'content-type': 'application/octet-stream',
      'content-length': String(body.length),
    };
    if (range !== null && start > 0)
      headers['content-range'] = `bytes ${start}-${content.length - 1}/${content.length}`;
    served.status = start > 0 ? 206 : 200;
    response.writeHead(served.status, headers);
    if (fault !== undefined && 'stallAfter' in fault) {
      const part = body.subarray(0, fault.stallAfter);
      this.bytesServed += part.length;
      response.write(part);
      return;
    }
    if (fault !== undefined && 'dropAfter' in fault) {
      const part = body.subarray(0, fault.dropAfter);
      this.bytesServed += part.length;
      response.write(part, () => setTimeout(() => response.destroy(), 20));
      return;
    }
    this.bytesServed += body.length;
    response.end(body);
  }
}
