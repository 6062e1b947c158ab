import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { requestTimeout } from './http-errors.js';
import { hasUnreadBody } from './request-body.js';

interface Watched {
  res: ServerResponse;
  bytesRead: number;
  lastProgress: number;
}

/**
 * Ends requests whose body stops arriving: a body from which no byte came for `idleMs` while the server was
 * ready to take more is answered 408 and its connection closed. A slow body that keeps coming is never cut,
 * however long it takes, nor one the server itself is not reading yet (its buffer is full: the server holds
 * it back, e.g. while a device drains a file transfer). Responses are not watched: a watch stream may stay
 * silent for hours. One timer checks every request in flight.
 */
export class StalledBodyGuard {
  private readonly watched = new Map<IncomingMessage, Watched>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => this.check(), Math.max(50, Math.min(1000, Math.floor(idleMs / 4))));
    this.timer.unref();
  }

  /** Mount first: watches the body of every request that has one. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      if (hasUnreadBody(req)) {
        this.watched.set(req, { res, bytesRead: req.socket.bytesRead, lastProgress: this.now() });
        const forget = (): void => void this.watched.delete(req);
        req.once('end', forget);
        req.once('close', forget);
      }
      next();
    };
  }

  /** requests whose bodies are being watched */
  get size(): number {
    return this.watched.size;
  }

  close(): void {
    clearInterval(this.timer);
    this.watched.clear();
  }

  private check(): void {
    const now = this.now();
    for (const [req, watched] of this.watched) {
      if (req.complete || req.destroyed) {
        this.watched.delete(req);
        continue;
      }
      const bytesRead = req.socket.bytesRead;
      const heldBack = req.readableLength >= req.readableHighWaterMark;
      if (bytesRead !== watched.bytesRead || heldBack) {
        watched.bytesRead = bytesRead;
        watched.lastProgress = now;
        continue;
      }
      if (now - watched.lastProgress < this.idleMs) continue;
      this.watched.delete(req);
      endStalled(req, watched.res, this.idleMs);
    }
  }
}

/** Answers 408 on the socket itself (the handler is still waiting for the body) and closes the connection. */
function endStalled(req: IncomingMessage, res: ServerResponse, idleMs: number): void {
  const socket = req.socket;
  if (res.headersSent || !socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(
    requestTimeout(`request body timed out: no bytes arrived for ${idleMs / 1000} s`).toBody(),
  );
  const head = [
    'HTTP/1.1 408 Request Timeout',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ].join('\r\n');
  socket.end(`${head}\r\n\r\n${body}`);
  // a client that does not read its answer either must not hold the socket
  setTimeout(() => socket.destroy(), 1000).unref();
}
