import type { RawData, WebSocket } from 'ws';
import { ChannelTable, LinkBacklog, unavailable } from '@outpost/shared';
import type { FlowSettings } from '@outpost/shared';

/**
 * One end of a relay WebSocket between two replicas: JSON text messages go to `onText`, binary frames to the
 * channels opened over it. Channel data waits while the socket has much queued, as on a device's link.
 */
export class RelaySocket {
  readonly channels: ChannelTable;

  constructor(
    readonly ws: WebSocket,
    onText: (text: string) => void,
    onClosed: () => void,
    flow?: FlowSettings,
  ) {
    const backlog = new LinkBacklog();
    this.channels = new ChannelTable(
      (frame) => {
        if (ws.readyState !== ws.OPEN) return false;
        ws.send(frame, backlog.track(frame.length));
        return true;
      },
      flow,
      backlog.ready,
    );
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      if (isBinary) this.channels.route(bytes);
      else onText(bytes.toString('utf8'));
    });
    ws.on('close', () => {
      this.channels.failAll(unavailable('the relay link between control-plane replicas closed'));
      onClosed();
    });
    ws.on('error', () => ws.terminate()); // the close that follows fails what is open
  }

  get isOpen(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  sendJson(message: unknown): boolean {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  close(): void {
    this.ws.close(1001, 'replica stopping');
    setTimeout(() => this.ws.terminate(), 2000).unref();
  }
}
