import fs from 'node:fs';
import path from 'node:path';
import type express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { BUCKETS, bucketForRequest } from '../src/rate-limit/buckets';
import type { Container } from '../src/container';
import { INTERACTION_PATH, OIDC_MOUNT } from '../src/oidc/oidc-provider';
import { interactionRouter } from '../web/accounts/interaction.router';
import { meterV1, type MeterDeps } from './rate-limit.middleware';

const ACCOUNTS_CSS = path.resolve(__dirname, '..', '..', 'web', 'accounts', 'accounts.css');

/**
 * The OpenID Provider's routes (docs/accounts-and-oidc.md), mounted before any body parser and
 * before the API-key authentication of /v1: the provider reads its own requests. Only the auth
 * buckets are metered here (per OAuth client, D9); discovery, JWKS and the pages are not.
 */
export function mountOidc(app: express.Express, c: Container, meter: MeterDeps | null): void {
  const { provider } = c.accounts;
  const callback = provider.callback();
  const v1Meter = meter ? meterV1(meter) : null;
  const authMeter = (req: Request, res: Response, next: NextFunction) => {
    if (!v1Meter || BUCKETS[bucketForRequest(req.method, `${req.baseUrl}${req.path}`)].per !== 'client') return next();
    void v1Meter(req, res, next);
  };
  const css = fs.existsSync(ACCOUNTS_CSS) ? fs.readFileSync(ACCOUNTS_CSS) : Buffer.alloc(0);
  app.get('/accounts/accounts.css', (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=300');
    res.type('text/css').send(css);
  });
  app.use(`${OIDC_MOUNT}${INTERACTION_PATH}`, interactionRouter(provider, c.accounts.signIn, c.accounts.clients, `${OIDC_MOUNT}${INTERACTION_PATH}`));
  app.use(OIDC_MOUNT, authMeter, (req, res) => callback(req, res));
  // The documented alias of the token endpoint: the same endpoint, so assertions addressed to either validate.
  app.post('/v1/oauth2/token', authMeter, (req, res) => {
    req.url = '/token';
    req.originalUrl = `${OIDC_MOUNT}/token`;
    callback(req, res);
  });
}
