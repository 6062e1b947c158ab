import { Router } from 'express';
import type { OpenApiDocument } from './openapi-types.js';
import { OPENAPI_PATH } from './openapi-document.js';

/**
 * `GET /v1/openapi.json`, public like most APIs' descriptions (Kubernetes asks for a login; Outpost's document
 * holds no data, only what the README says, and tools fetch it without a key). Serialised once; Express adds
 * an ETag and answers a matching `If-None-Match` with 304.
 */
export function openApiRoutes(document: OpenApiDocument): Router {
  const body = JSON.stringify(document);
  const router = Router();
  router.get(OPENAPI_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.type('application/json').send(body);
  });
  return router;
}
