import { connect } from 'node:net';
import type { Probe } from './probe.js';
import { errorText, healthy, missingMember, unhealthy } from './probe.js';

/** TCP: a connection to host:port is accepted. */
export const tcpProbe: Probe = (spec, signal) => {
  const tcp = spec.tcp;
  if (tcp === undefined) return Promise.resolve(missingMember(spec));
  const target = `${tcp.host}:${tcp.port}`;
  return new Promise((resolve) => {
    const socket = connect({ host: tcp.host, port: tcp.port, signal });
    socket.once('connect', () => {
      socket.destroy();
      resolve(healthy(`${target} accepts connections`));
    });
    socket.once('error', (err) => {
      socket.destroy();
      resolve(unhealthy(`cannot connect to ${target}: ${errorText(err)}`));
    });
  });
};
