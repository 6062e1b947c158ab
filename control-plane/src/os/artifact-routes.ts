import express from 'express';
import type { NextFunction, Request, Response, Router } from 'express';
import { invalidArgument, notFound, unauthenticated } from '@outpost/shared';
import { hasUnreadBody } from '../server/request-body.js';
import type { ArtifactStore } from './artifact-store.js';
import { DeviceDownloads } from './device-downloads.js';
import type { DownloadingDevice } from './device-downloads.js';

export interface ArtifactAccess {
  /** the device a bearer is the credential of, if it is one */
  deviceOf(secret: string): DownloadingDevice | undefined;
  /** whether the device may download the artifact: a version published for its device type has it */
  mayDeviceFetch(device: string, sha256: string): boolean;
  /**
   * calls `listener` with each device whose credential stops working (revoked or rotated), and whether that was
   * through this process ('here') or told by another replica ('elsewhere', possibly after the device downloads here
   * with its new credential)
   */
  onDeviceRevoked(listener: (device: string, origin: 'here' | 'elsewhere') => void): void;
  /** checks an API key for a permission; throws UNAUTHENTICATED / PERMISSION_DENIED */
  authorizeKey(secret: string, permission: string): void;
}

export const ARTIFACT_UPLOAD_PERMISSION = 'services/devices.outpost/permissions/osVersions.create';
export const ARTIFACT_DOWNLOAD_PERMISSION = 'services/devices.outpost/permissions/osVersions.get';

/**
 * `PUT /v1/artifacts` (raw body; header `X-Content-Sha256` optional but checked) → `{sha256, size}`;
 * `GET|HEAD /v1/artifacts/{sha256}` with `Range: bytes=a-b`, `ETag`, `If-None-Match` (304) and `If-Range`, for
 * API keys and for devices (credential), which get only the artifacts of versions published for their device
 * type (others are 404 to them) and whose downloads in progress are cut when their credential is revoked.
 * `onDownload` counts what was served (the e2e suite asserts a rollback downloads nothing).
 */
export function artifactRoutes(
  store: ArtifactStore,
  access: ArtifactAccess,
  onDownload: (sha256: string, device: boolean) => void = () => {},
  deviceDownloads = new DeviceDownloads(),
): Router {
  const router = express.Router();
  access.onDeviceRevoked((device, origin) =>
    origin === 'here' ? deviceDownloads.cut(device) : deviceDownloads.cutRevoked(device),
  );
  const bearer = (req: Request): string => {
    const secret = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
    if (!secret)
      throw unauthenticated('missing credential: send "Authorization: Bearer <API key or device credential>"');
    return secret;
  };
  const guard =
    (handler: (req: Request, res: Response) => Promise<void>) =>
    (req: Request, res: Response, next: NextFunction): void => {
      handler(req, res).catch((err: unknown) => {
        if (res.headersSent || !req.socket || req.socket.destroyed) {
          res.destroy(); // mid-answer, or the client is gone: nothing to answer
          return;
        }
        // refused before its body was read (credential, size, space): do not wait for the rest of it
        if (hasUnreadBody(req)) res.setHeader('Connection', 'close');
        next(err); // the app's error handler answers (and logs what is not the client's doing)
      });
    };

  router.put(
    '/v1/artifacts',
    guard(async (req, res) => {
      access.authorizeKey(bearer(req), ARTIFACT_UPLOAD_PERMISSION);
      const expected = req.get('x-content-sha256')?.toLowerCase();
      const stored = await store.put(req, expected, declaredLength(req));
      res.json({ ...stored, url: `/v1/artifacts/${stored.sha256}` });
    }),
  );

  const download = guard(async (req, res) => {
    const secret = bearer(req);
    const caller = access.deviceOf(secret);
    const device = caller?.device;
    if (device === undefined) access.authorizeKey(secret, ARTIFACT_DOWNLOAD_PERMISSION);
    const sha256 = String(req.params['sha256']);
    store.pathOf(sha256); // a malformed digest is INVALID_ARGUMENT for everyone
    if (device !== undefined && !access.mayDeviceFetch(device, sha256)) {
      throw notFound(`no artifact ${sha256} of a version published for this device's type`);
    }
    // held from before it is looked at until the answer ends: garbage collection on any replica keeps it
    const release = await store.hold(sha256);
    if (res.closed) release();
    else res.on('close', release);
    const artifact = await store.stat(sha256);
    if (!artifact) throw notFound(`no artifact ${sha256}`);
    const etag = `"${sha256}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('Cache-Control', 'private, max-age=31536000, immutable');
    if (matchesAnyTag(req.get('if-none-match'), etag)) {
      res.status(304).end();
      return;
    }
    const ifRange = req.get('if-range');
    const range = ifRange === undefined || ifRange === etag ? parseRange(req.get('range'), artifact.size) : undefined;
    if (range === 'unsatisfiable') {
      res.status(416).setHeader('Content-Range', `bytes */${artifact.size}`);
      res.end();
      return;
    }
    if (req.method === 'GET') onDownload(sha256, device !== undefined);
    if (range) {
      res.status(206);
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${artifact.size}`);
      res.setHeader('Content-Length', String(range.end - range.start + 1));
    } else {
      res.setHeader('Content-Length', String(artifact.size));
    }
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    if (caller !== undefined) deviceDownloads.track(caller, res);
    const stream = store.read(sha256, range);
    res.on('close', () => stream.destroy());
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  });
  router.get('/v1/artifacts/:sha256', download);
  router.head('/v1/artifacts/:sha256', download);
  return router;
}

/** Whether an If-None-Match header names `etag` (or is `*`); weak tags compare as their strong ones. */
function matchesAnyTag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

function declaredLength(req: Request): number | undefined {
  const header = req.get('content-length');
  if (header === undefined) return undefined;
  if (!/^\d+$/.test(header)) throw invalidArgument(`malformed Content-Length "${header}"`);
  return Number(header);
}

/** One `bytes=a-b`, `bytes=a-` or `bytes=-n` range; undefined for none or several (answered whole). */
function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) {
    if (/^bytes=/.test(header)) return undefined;
    throw invalidArgument(`malformed Range header "${header}"`);
  }
  const [, from, to] = match;
  let start: number;
  let end: number;
  if (from === '') {
    if (to === '') return undefined;
    start = Math.max(0, size - Number(to));
    end = size - 1;
  } else {
    start = Number(from);
    end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
