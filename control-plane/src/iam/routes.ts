import { permissionDenied } from '@outpost/shared';
import express, { Router } from 'express';
import { parseRequestBody } from '../server/request-body.js';
import { NewApiKeySchema, type ApiKeyStore } from './api-key-store.js';
import { authenticateRequest, principalOf } from './authenticate-request.js';
import type { Authorizer } from './authorizer.js';
import { formatGrant } from './grant.js';

const permission = (verb: 'create' | 'list' | 'get' | 'delete'): string =>
  `services/iam.outpost/permissions/apiKeys.${verb}`;

/** API keys are global: their permissions are checked on `*`, which only scope `*` covers. */
const GLOBAL = '*';

/** `POST|GET /v1/apiKeys`, `GET|DELETE /v1/apiKeys/{id}`; errors go to the app's apiErrorHandler. */
export function iamRoutes(store: ApiKeyStore, authorizer: Authorizer): Router {
  const router = Router();
  router.use('/v1/apiKeys', authenticateRequest(store));

  router.post('/v1/apiKeys', express.json(), (req, res) => {
    const principal = principalOf(res);
    authorizer.authorize(principal, permission('create'), GLOBAL);
    const input = parseRequestBody(NewApiKeySchema, req.body);
    for (const grant of input.grants) {
      if (!authorizer.holdsGrant(principal, grant)) {
        throw permissionDenied(`cannot grant ${formatGrant(grant)}: the calling key does not hold it`);
      }
    }
    const created = store.create(input);
    res.setHeader('Cache-Control', 'no-store');
    res.json(created);
  });

  router.get('/v1/apiKeys', (_req, res) => {
    authorizer.authorize(principalOf(res), permission('list'), GLOBAL);
    res.json({ apiKeys: store.list() });
  });

  router.get('/v1/apiKeys/:id', (req, res) => {
    authorizer.authorize(principalOf(res), permission('get'), GLOBAL);
    res.json(store.get(req.params.id));
  });

  router.delete('/v1/apiKeys/:id', (req, res) => {
    authorizer.authorize(principalOf(res), permission('delete'), GLOBAL);
    store.revoke(req.params.id);
    res.json({});
  });

  return router;
}
