/**
 * True for a host that names this machine's loopback interface: `localhost`, 127.0.0.0/8, `::1` (and
 * IPv4-mapped 127.x). Takes a URL's hostname (IPv6 in brackets) or a bare address; anything unparsable is false.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  let hostname: string;
  try {
    // the URL parser normalizes spellings: 127.1, 0x7f.0.0.1, 0:0:0:0:0:0:0:1, ::ffff:127.0.0.1
    hostname = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname;
  } catch {
    return false;
  }
  if (hostname === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(hostname)) return true;
  return hostname === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname);
}
