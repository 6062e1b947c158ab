import { createRequire } from 'node:module';
import { join } from 'node:path';

interface ListeningSocket {
  bind(path: string): void;
  close(): void;
  on(event: 'message', listener: (message: Buffer) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
}

/** One notification as systemd would receive it, with the time it arrived. */
export interface Notification {
  fields: Record<string, string>;
  atMs: number;
}

/** A unix datagram socket bound in `dir`, playing systemd's NOTIFY_SOCKET. */
export interface NotifyListener {
  path: string;
  received: Notification[];
  close(): void;
}

export function listenForNotifications(dir: string): NotifyListener {
  const unixDgram = createRequire(import.meta.url)('unix-dgram') as {
    createSocket(type: 'unix_dgram', listener: (message: Buffer) => void): ListeningSocket;
  };
  const path = join(dir, 'notify');
  const received: Notification[] = [];
  const socket = unixDgram.createSocket('unix_dgram', (message) => {
    const fields: Record<string, string> = {};
    for (const line of message.toString().split('\n')) {
      const equals = line.indexOf('=');
      if (equals > 0) fields[line.slice(0, equals)] = line.slice(equals + 1);
    }
    received.push({ fields, atMs: Date.now() });
  });
  socket.on('error', (err) => {
    throw err;
  });
  socket.bind(path);
  return { path, received, close: () => socket.close() };
}
