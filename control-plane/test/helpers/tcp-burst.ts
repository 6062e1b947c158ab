import { connect, type AddressInfo, type Server, type Socket } from 'node:net';

/** Opens `n` TCP connections to `server` at once (a burst of new links); resolves once each is connected. */
export function openConnections(server: Server, n: number): Promise<Socket[]> {
  const { port } = server.address() as AddressInfo;
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
}
