/**
 * `node plain-tcp-relay.mjs <target port>`: the simplest relay node can be, for the terminal benchmark's reference
 * figures. Listens on a free port of 127.0.0.1 (printed as the first line of stdout) and joins every connection to
 * one of its own to 127.0.0.1:<target port>, the bytes piped both ways (half closes passed on) with nothing added.
 * A chain of these moves bytes over as many loopback hops and processes as a port forward does, without its
 * protocol: what a forward reaches is bounded by what the chain reaches on the same machine.
 * Plain JavaScript, so the process loads no TypeScript loader.
 */
import { connect, createServer } from 'node:net';

const target = Number(process.argv[2]);
const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
  const upstream = connect({ port: target, host: '127.0.0.1', allowHalfOpen: true, noDelay: true });
  client.pipe(upstream);
  upstream.pipe(client);
  const fail = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', fail);
  upstream.on('error', fail);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
