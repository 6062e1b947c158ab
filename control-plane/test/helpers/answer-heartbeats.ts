import type { WebSocket } from 'ws';

/**
 * Makes a hand-made agent link answer the control plane's heartbeats as an agent does. A link that says nothing for
 * two heartbeats is cut (1006); with the 1-2 s heartbeats many tests use, one slow moment of a loaded machine would
 * cut a silent link before the close or the message a test waits for.
 */
export function answerHeartbeats(ws: WebSocket): void {
  ws.on('message', (data: Buffer) => {
    let message: { type?: unknown; nonce?: unknown };
    try {
      message = JSON.parse(data.toString('utf8')) as { type?: unknown; nonce?: unknown };
    } catch {
      return;
    }
    if (message.type === 'ping' && ws.readyState === ws.OPEN) {
      ws.send(JSON.stringify({ type: 'pong', nonce: message.nonce }));
    }
  });
}
