/** Where README.md's "Behind nginx" site listens, proxies to and finds its certificate, for a run on loopback. */
export interface NginxSitePlacement {
  listenPort: number;
  upstreamPort: number;
  certFile: string;
  keyFile: string;
  /** `listen … reuseport`: one listening socket per worker, so the kernel spreads the connections over them */
  reusePort?: boolean;
}

/**
 * README.md's nginx site block (the one marked `<!-- nginx-site: … -->`), pointed at `at`: what
 * test/integration/nginx-proxy.test.ts runs and the fleet benchmark measures. Throws when the README no longer
 * has the block or one of the lines replaced here.
 */
export function readmeNginxSite(readme: string, at: NginxSitePlacement): string {
  const block = /<!-- nginx-site: test\/integration\/nginx-proxy\.test\.ts -->\n```nginx\n([\s\S]*?)```/.exec(readme);
  if (block === null) throw new Error('README.md has no <!-- nginx-site --> ```nginx block');
  const listen = `127.0.0.1:${at.listenPort} ssl${at.reusePort === true ? ' reuseport' : ''}`;
  const replacements: [string, string][] = [
    ['    listen 443 ssl;\n', `    listen ${listen};\n`],
    ['    listen [::]:443 ssl;\n', ''],
    ['/etc/letsencrypt/live/outpost.example.com/fullchain.pem', at.certFile],
    ['/etc/letsencrypt/live/outpost.example.com/privkey.pem', at.keyFile],
    ['proxy_pass http://127.0.0.1:8080;', `proxy_pass http://127.0.0.1:${at.upstreamPort};`],
  ];
  let site = block[1]!;
  for (const [from, to] of replacements) {
    const found = site.split(from).length - 1;
    if (found !== 1) throw new Error(`the README's nginx site has "${from.trim()}" ${found} times instead of once`);
    site = site.replace(from, to);
  }
  return site;
}
