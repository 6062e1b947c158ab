import { createRequire } from 'node:module';

/** The part of the unix-dgram package's socket that is used here. */
interface UnixDgramSocket {
  send(buffer: Buffer, offset: number, length: number, path: string, callback: (err?: Error) => void): void;
  close(): void;
  on(event: 'error', listener: (err: Error) => void): void;
}

interface UnixDgramModule {
  createSocket(type: 'unix_dgram'): UnixDgramSocket;
}

// Node has no unix datagram sockets; unix-dgram is a small native addon. Loaded through a computed require so
// esbuild leaves it out of the agent's bundle: its binding is found in node_modules beside the agent at run time.
const UNIX_DGRAM_PACKAGE = 'unix-dgram';

/** Sends one datagram to the unix datagram socket at `path`. */
export type SendDatagram = (path: string, message: string) => Promise<void>;

/**
 * Loads the native addon (throws when it is not installed beside the agent) and returns a sender that, like
 * sd_notify(3), opens a socket for each message: an open socket would hold the event loop alive.
 */
export function unixDatagramSender(): SendDatagram {
  const unixDgram = createRequire(import.meta.url)(UNIX_DGRAM_PACKAGE) as UnixDgramModule;
  return (path, message) =>
    new Promise<void>((resolve, reject) => {
      const socket = unixDgram.createSocket('unix_dgram');
      // send errors reach the callback; this keeps a stray 'error' event from being thrown
      socket.on('error', () => undefined);
      const buffer = Buffer.from(message);
      socket.send(buffer, 0, buffer.length, path, (err) => {
        socket.close();
        if (err === undefined) resolve();
        else reject(err);
      });
    });
}
