import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Router } from 'express';
import { DataSource } from 'typeorm';
import { FlowEntity } from '../../entities';
import { originsFor } from '../../src/flows/flow.service';
import type { HostedLinks } from '../../src/hosted/hosted-links';
import { SESSION_ID_PATTERN } from '../../src/ids';
import type { SessionService } from '../../src/sessions/session.service';
import { pickLocale, renderHostedPage } from './hosted-page';

/** The page's own bundle (npm run build), next to this file once compiled. */
const ASSETS_DIR = path.join(__dirname, 'assets');
const ASSET_TYPES: Record<string, string> = { 'app.js': 'text/javascript; charset=utf-8', 'app.css': 'text/css; charset=utf-8' };

/**
 * The Content-Security-Policy of one hosted page: only the service's own scripts and styles (plus
 * the brand colour's nonce), and `frame-ancestors` naming exactly the origins the flow allows
 * (https only for live sessions), or 'none'.
 */
export function hostedPageCsp(origins: string[], styleNonce: string): string {
  const ancestors = origins.length ? origins.join(' ') : "'none'";
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${styleNonce}'`,
    "img-src 'self' data: blob: https:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
}

/** GET /hosted/:id?token=...: the page (opening it starts a live session: created -> in_progress); GET /hosted/assets/*: its bundle. */
export function hostedRouter(db: DataSource, sessions: SessionService, links: HostedLinks): Router {
  const router = Router();
  const assets = new Map<string, { plain: Buffer; gzip: Buffer | null }>();
  router.get('/hosted/assets/:file', (req, res) => {
    const file = req.params.file;
    const type = ASSET_TYPES[file];
    if (!type) return void res.status(404).end();
    let asset = assets.get(file);
    if (!asset) {
      const p = path.join(ASSETS_DIR, file);
      if (!fs.existsSync(p)) return void res.status(404).end();
      asset = { plain: fs.readFileSync(p), gzip: fs.existsSync(`${p}.gz`) ? fs.readFileSync(`${p}.gz`) : null };
      assets.set(file, asset);
    }
    res.setHeader('content-type', type);
    res.setHeader('cache-control', 'public, max-age=300');
    res.setHeader('vary', 'accept-encoding');
    res.setHeader('x-content-type-options', 'nosniff');
    if (asset.gzip && req.acceptsEncodings('gzip') === 'gzip') {
      res.setHeader('content-encoding', 'gzip');
      return void res.send(asset.gzip);
    }
    res.send(asset.plain);
  });
  router.get('/hosted/:id', async (req, res, next) => {
    try {
      const id = req.params.id;
      const token = typeof req.query.token === 'string' ? req.query.token : '';
      if (!SESSION_ID_PATTERN.test(id) || !links.verify(id, token)) {
        res.status(404).type('html').send('<!doctype html><html lang="en"><title>Not found</title><p>This verification link is not valid.</p></html>');
        return;
      }
      const session = await sessions.markOpened(id);
      const flow = session && (await db.getRepository(FlowEntity).findOneBy({ id: session.flowId }));
      if (!session || !flow) {
        res.status(404).type('html').send('<!doctype html><html lang="en"><title>Not found</title><p>This verification link is not valid.</p></html>');
        return;
      }
      const styleNonce = randomBytes(16).toString('base64');
      res.setHeader('cache-control', 'no-store');
      res.setHeader('referrer-policy', 'no-referrer'); // the URL carries the token
      const frameOrigins = originsFor(flow, session.livemode, session.redirectUrl);
      res.setHeader('content-security-policy', hostedPageCsp(frameOrigins, styleNonce));
      // Browsers that ignore frame-ancestors still honour this; with allowed origins the CSP alone decides.
      if (!frameOrigins.length) res.setHeader('x-frame-options', 'DENY');
      res.setHeader('permissions-policy', 'camera=(self), microphone=(), geolocation=()');
      res.setHeader('x-content-type-options', 'nosniff');
      res.type('html').send(renderHostedPage(session, flow, { locale: pickLocale(session.locale, (l) => req.acceptsLanguages(...l)), styleNonce, hostedUrl: links.url(id) }));
    } catch (err) {
      next(err);
    }
  });
  return router;
}
