import { permissionDenied } from '@outpost/shared';
import express, { Router, type RequestHandler } from 'express';
import { parseRequestBody } from '../server/request-body.js';
import { NewApiKeySchema, type ApiKeyStore } from './api-key-store.js';
import { authenticateRequest, principalOf } from './authenticate-request.js';
import type { Authorizer } from './authorizer.js';
import { formatGrant } from './grant.js';

const permission = (verb: 'create' | 'list' | 'get' | 'delete'): string =>
  `services/iam.outpost/permissions/apiKeys.${verb}`;

/** API keys are global: their permissions are checked on `*`, which only scope `*` covers. */
const GLOBAL = '*';

/**
 * `POST|GET /v1/apiKeys`, `GET|DELETE /v1/apiKeys/{id}`; errors go to the app's apiErrorHandler. `authenticate`
 * is the server's authenticateRequest (with its limit on failed attempts).
 */
export function iamRoutes(
  store: ApiKeyStore,
  authorizer: Authorizer,
  authenticate: RequestHandler = authenticateRequest(store),
): Router {
  const router = Router();
  router.use('/v1/apiKeys', authenticate);

  router.post('/v1/apiKeys', express.json(), (req, res) => {
    const principal = principalOf(res);
    authorizer.authorize(principal, permission('create'), GLOBAL);
    const input = parseRequestBody(NewApiKeySchema, req.body);
    const grants = input.grants.map((grant) => {
      const grantable = authorizer.grantable(principal, grant);
      if (!grantable) throw permissionDenied(`cannot grant ${formatGrant(grant)}: the calling key does not hold it`);
      return grantable;
    });
    const created = store.create({ ...input, grants });
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
    const principal = principalOf(res);
    authorizer.authorize(principal, permission('delete'), GLOBAL);
    const target = store.get(req.params.id);
    // revoking takes away what the key could do: only a key that could have handed all of it out may
    const withheld = target.grants.find((grant) => !authorizer.holdsGrant(principal, grant));
    if (withheld) {
      throw permissionDenied(
        `cannot revoke ${target.name}: the calling key does not hold its grant ${formatGrant(withheld)}`,
      );
    }
    store.revoke(req.params.id);
    res.json({});
  });

  return router;
}
