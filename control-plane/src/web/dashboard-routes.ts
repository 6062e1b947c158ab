import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import express from 'express';
import type { Response, Router } from 'express';

/** Where the dashboard's scripts and styles are served; the page itself is `GET /`. */
export const DASHBOARD_ASSET_PATH = '/dashboard';

/**
 * Only the dashboard's own files, no inline script, and API calls (and the terminal's WebSocket) to this origin
 * alone; no framing. Style elements need the page's nonce: the terminal (xterm.js) adds its own, stamped with it.
 * (`blob:` lets a downloaded file be handed to the browser.)
 */
function contentSecurityPolicy(styleNonce: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${styleNonce}'`,
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
}

/**
 * The dashboard (spec 000 "Dashboard operations"): a single page, bundled by `npm run build`, that calls the REST
 * API with the API key the user pastes. Serves `GET /` (the page) and `GET /dashboard/*` (its files); anything
 * else, and any missing file, falls through to the other routes, so it shadows none of them. The page is public
 * (it holds no data); every call it makes needs an API key.
 */
export function dashboardRoutes(assetDirectory: string): Router {
  const router = express.Router();
  const securityHeaders = (res: Response, styleNonce = randomBytes(16).toString('base64')): void => {
    res.setHeader('content-security-policy', contentSecurityPolicy(styleNonce));
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    // always revalidated (ETag): a new version of the server serves its new files at once
    res.setHeader('cache-control', 'no-cache');
  };
  router.get('/', (_req, res) => {
    let page: string;
    try {
      page = readFileSync(join(assetDirectory, 'index.html'), 'utf8');
    } catch {
      res
        .status(503)
        .type('text/plain')
        .send(`The dashboard is not built (no ${assetDirectory}): run npm run build.\n`);
      return;
    }
    const styleNonce = randomBytes(16).toString('base64');
    securityHeaders(res, styleNonce);
    res.type('html').send(page.replace('%CSP_NONCE%', styleNonce));
  });
  router.use(
    DASHBOARD_ASSET_PATH,
    express.static(assetDirectory, {
      index: false,
      redirect: false,
      dotfiles: 'ignore',
      fallthrough: true,
      setHeaders: (res: Response) => securityHeaders(res),
    }),
  );
  return router;
}
