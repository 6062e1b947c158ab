// guestfwd helper: QEMU runs `node relay.mjs PORT VM` once per guest connection to 10.0.2.100:8080, with the
// connection on stdin/stdout; this pipes it to the control plane on 127.0.0.1:PORT (no other network).
// VM (the machine's name) only names the process, so the harness can drop one machine's connections.
import { connect } from 'node:net';

const upstream = connect(Number(process.argv[2]), '127.0.0.1');
process.stdin.pipe(upstream);
upstream.pipe(process.stdout);
process.stdin.on('end', () => upstream.end());
upstream.on('close', () => process.exit(0));
upstream.on('error', () => process.exit(1));
process.stdout.on('error', () => process.exit(0));
