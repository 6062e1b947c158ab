import type { WebSocket } from 'ws';
import { encodeMessage } from '@outpost/shared';
import type { ServerMessage } from '@outpost/shared';
import type { UsedCredential } from '../devices/device-credentials.js';

/** How long a retired connection gets to finish its close handshake before its socket is cut. */
const RETIRED_CLOSE_GRACE_MS = 5_000;

/** One live agent connection. */
export class AgentSession {
  lastSeen = Date.now();
  /**
   * The spec went out in answer to the agent's hello and no getSpec came since: the getSpec an agent sends right
   * after its first welcome needs no second spec (every change from then on is pushed).
   */
  specSentForHello = false;

  constructor(
    readonly deviceName: string,
    readonly socket: WebSocket,
    /** what authenticated the link (a replica re-checks it when it may have missed a revocation) */
    readonly credential: UsedCredential,
  ) {}

  send(message: ServerMessage): boolean {
    if (this.socket.readyState !== this.socket.OPEN) return false;
    this.socket.send(encodeMessage(message));
    return true;
  }

  /**
   * Closes the connection with `code` and cuts it when the peer does not answer the close within a few seconds
   * (ws would wait 30 s). The gateway stops listening to it before calling this.
   */
  retire(code: number, reason: string): void {
    this.socket.close(code, reason);
    const cut = setTimeout(() => this.socket.terminate(), RETIRED_CLOSE_GRACE_MS);
    cut.unref();
    this.socket.once('close', () => clearTimeout(cut));
  }
}
