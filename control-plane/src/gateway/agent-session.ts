import type { WebSocket } from 'ws';
import { encodeMessage } from '@outpost/shared';
import type { ServerMessage } from '@outpost/shared';

/** One live agent connection. */
export class AgentSession {
  lastSeen = Date.now();
  replaced = false;

  constructor(
    readonly deviceName: string,
    readonly socket: WebSocket,
  ) {}

  send(message: ServerMessage): boolean {
    if (this.socket.readyState !== this.socket.OPEN) return false;
    this.socket.send(encodeMessage(message));
    return true;
  }
}
