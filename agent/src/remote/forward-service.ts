import { connect } from 'node:net';
import type { Socket, TcpNetConnectOpts } from 'node:net';
import {
  DEFAULT_FORWARD_TARGETS,
  failedPrecondition,
  forwardArgsSchema,
  invalidArgument,
  permissionDenied,
  unavailable,
} from '@outpost/shared';
import type { Channel } from '@outpost/shared';
import type { Logger } from '../logging/logger.js';
import type { ChannelServiceHandler } from '../transfer/channel-services.js';
import { ownRemoteAccess } from './own-remote-access.js';
import { SocketChannelReader } from './socket-channel-reader.js';

const CONNECT_TIMEOUT_MS = 10_000;
/**
 * What a write to the target's socket may leave queued before the relay waits for 'drain' (node's default is 16 KiB:
 * every frame of 64 KiB would wait).
 */
const SOCKET_WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * `remote.forward` (issue 21): one TCP connection from the device to a target of the device's allow-list
 * (spec.remoteAccess.forwardTargets), its bytes relayed both ways through the channel. The connection is made
 * before the open is answered, so a refused or unreachable target fails the open.
 */
export function forwardService(logger: Logger, desiredDeviceFile: string): ChannelServiceHandler {
  return async (raw, channel) => {
    const parsed = forwardArgsSchema.safeParse(raw);
    if (!parsed.success) throw invalidArgument(`invalid remote.forward arguments: ${parsed.error.issues[0]?.message}`);
    const { host, port } = parsed.data;
    const own = await ownRemoteAccess(desiredDeviceFile);
    if (own?.disablePortForward === true) {
      throw failedPrecondition('port forwarding is disabled on this device (spec.remoteAccess.disablePortForward)');
    }
    // the device's own spec decides; before it has one, the control plane's list
    const allowedTargets =
      own === undefined ? parsed.data.allowedTargets : (own.forwardTargets ?? DEFAULT_FORWARD_TARGETS);
    if (!allowedTargets.includes(host)) {
      throw permissionDenied(
        `the device forwards only to ${allowedTargets.join(', ') || 'nothing'} (spec.remoteAccess.forwardTargets), not to ${host}`,
      );
    }
    const reader = new SocketChannelReader(channel);
    const socket = await connected(host, port, reader);
    return {
      run: async () => {
        await relay(socket, channel, reader);
        logger.info({ host, port }, 'port forward closed');
      },
    };
  };
}

/** A connection to the target whose bytes `reader` takes as they arrive. */
function connected(host: string, port: number, reader: SocketChannelReader): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // net.Socket passes stream options on to its streams (the typings of connect leave them out)
    const options: TcpNetConnectOpts & { writableHighWaterMark: number } = {
      host,
      port,
      timeout: CONNECT_TIMEOUT_MS,
      writableHighWaterMark: SOCKET_WRITE_BUFFER_BYTES,
      onread: reader.onread,
    };
    const socket = connect(options);
    socket.setNoDelay(true);
    const fail = (why: string): void => {
      socket.destroy();
      reject(unavailable(`cannot connect to ${host}:${port} from the device: ${why}`));
    };
    socket.once('timeout', () => fail('timed out'));
    socket.once('error', (err) => fail(err.message));
    socket.once('connect', () => {
      socket.removeAllListeners('timeout').removeAllListeners('error').setTimeout(0);
      reader.attach(socket);
      resolve(socket);
    });
  });
}

/** Both directions until both ended; a failed channel or socket ends both. */
async function relay(socket: Socket, channel: Channel, reader: SocketChannelReader): Promise<void> {
  // the reader reads the socket only as fast as the channel's credit lets the writes go
  const toChannel = reader.run();
  const toSocket = (async () => {
    for await (const chunk of channel) {
      if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve));
    }
    socket.end();
  })();
  Promise.all([toChannel, toSocket]).catch(() => socket.destroy());
  const failure = (await Promise.allSettled([toChannel, toSocket])).find((r) => r.status === 'rejected');
  await reader.closed;
  if (failure !== undefined) throw failure.reason;
}
