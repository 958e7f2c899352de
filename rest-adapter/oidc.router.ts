import { Router, type RequestHandler } from 'express';
import type Provider from 'oidc-provider';
import { OIDC_MOUNT } from '../src/oidc/oidc-provider';
import { USED_REQUEST_URI } from '../src/oidc/par-single-use';

/** `claimPushedRequest` is src/oidc/par-single-use.ts's, bound to the database: true on a request_uri's first use. */
export type OidcRouterDeps = { provider: Provider; claimPushedRequest: (requestUri: string) => Promise<boolean> };

/**
 * The OpenID Provider's /v1 routes (docs/accounts-and-oidc.md), mounted before any body parser and
 * before the API-key authentication of /v1: the provider reads its own requests. `meter` charges the
 * auth buckets per OAuth client and everything else here per client address (http/rate-limit.middleware.ts
 * meterOidc). Its sign-in pages (web/accounts/interaction.router.ts) are mounted ahead of it by the kernel's assembly.
 */
export function oidcRouter(d: OidcRouterDeps, meter: RequestHandler[], router: Router = Router()): Router {
  const callback = d.provider.callback();
  // A pushed request's request_uri works once (src/oidc/par-single-use.ts): a second use reaches the provider as an unknown one.
  router.get(`${OIDC_MOUNT}/auth`, async (req, _res, next) => {
    const requestUri = req.query.request_uri;
    try {
      if (typeof requestUri === 'string' && !(await d.claimPushedRequest(requestUri))) {
        const url = new URL(req.url, 'http://localhost');
        url.searchParams.set('request_uri', USED_REQUEST_URI);
        req.url = `${url.pathname}${url.search}`;
      }
      next();
    } catch (err) {
      next(err);
    }
  });
  router.use(OIDC_MOUNT, ...meter, (req, res) => callback(req, res));
  // The documented alias of the token endpoint: the same endpoint, so assertions addressed to either validate.
  router.post('/v1/oauth2/token', ...meter, (req, res) => {
    req.url = '/token';
    req.originalUrl = `${OIDC_MOUNT}/token`;
    callback(req, res);
  });
  return router;
}
