import fs from 'node:fs';
import path from 'node:path';
import type express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { BUCKETS, bucketForRequest } from '../src/rate-limit/buckets';
import type { Container } from '../src/container';
import { INTERACTION_PATH, OIDC_MOUNT } from '../src/oidc/oidc-provider';
import { claimPushedRequest, USED_REQUEST_URI } from '../src/oidc/par-single-use';
import { interactionRouter } from '../web/accounts/interaction.router';
import { meterClientIp, meterV1, type MeterDeps } from './rate-limit.middleware';

const ACCOUNTS_CSS = path.resolve(__dirname, '..', '..', 'web', 'accounts', 'accounts.css');

/**
 * The OpenID Provider's routes (docs/accounts-and-oidc.md), mounted before any body parser and
 * before the API-key authentication of /v1: the provider reads its own requests. The auth buckets
 * are metered per OAuth client (docs/rate-limits.md); everything else here (discovery, JWKS, the
 * authorization and sign-in pages, revocation, logout) per client address in `default`.
 */
export function mountOidc(app: express.Express, c: Container, meter: MeterDeps | null): void {
  const { provider } = c.accounts;
  const callback = provider.callback();
  const v1Meter = meter ? meterV1(meter) : null;
  const ipMeter = meter ? meterClientIp(meter, 'default') : null;
  const authMeter = (req: Request, res: Response, next: NextFunction) => {
    if (!v1Meter || !ipMeter) return next();
    if (BUCKETS[bucketForRequest(req.method, `${req.baseUrl}${req.path}`)].per === 'client') return void v1Meter(req, res, next);
    ipMeter(req, res, next);
  };
  const css = fs.existsSync(ACCOUNTS_CSS) ? fs.readFileSync(ACCOUNTS_CSS) : Buffer.alloc(0);
  app.get('/accounts/accounts.css', (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=300');
    res.type('text/css').send(css);
  });
  app.use(`${OIDC_MOUNT}${INTERACTION_PATH}`, authMeter, interactionRouter(provider, c.accounts.signIn, c.accounts.clients, `${OIDC_MOUNT}${INTERACTION_PATH}`));
  // A pushed request's request_uri works once (src/oidc/par-single-use.ts): a second use reaches the provider as an unknown one.
  app.get(`${OIDC_MOUNT}/auth`, async (req, _res, next) => {
    const requestUri = req.query.request_uri;
    try {
      if (typeof requestUri === 'string' && !(await claimPushedRequest(c.db, requestUri))) {
        const url = new URL(req.url, 'http://localhost');
        url.searchParams.set('request_uri', USED_REQUEST_URI);
        req.url = `${url.pathname}${url.search}`;
      }
      next();
    } catch (err) {
      next(err);
    }
  });
  app.use(OIDC_MOUNT, authMeter, (req, res) => callback(req, res));
  // The documented alias of the token endpoint: the same endpoint, so assertions addressed to either validate.
  app.post('/v1/oauth2/token', authMeter, (req, res) => {
    req.url = '/token';
    req.originalUrl = `${OIDC_MOUNT}/token`;
    callback(req, res);
  });
}
