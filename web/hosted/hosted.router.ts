import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Router } from 'express';
import { setPageSecurityHeaders } from '../../http/security-headers';
import { FlowService, originsFor } from '../../src/flows/flow.service';
import { hostedLinkEnded } from '../../src/hosted-flow/hosted-link-ended';
import type { SignedLinks } from '../../src/links/signed-links';
import { SESSION_ID_PATTERN } from '../../src/ids';
import type { SessionService } from '../../src/sessions/session.service';
import { pickLocale, renderHostedPage } from './hosted-page';

/** The page's own bundle (npm run build), next to this file once compiled. */
const ASSETS_DIR = path.join(__dirname, 'assets');
const ASSET_TYPES: Record<string, string> = { 'app.js': 'text/javascript; charset=utf-8', 'app.css': 'text/css; charset=utf-8' };

/** The one other origin the page may load an image from: the flow's https logo, if it has one. */
function logoOrigin(logoUrl: string | null): string[] {
  if (!logoUrl) return [];
  try {
    const url = new URL(logoUrl);
    return url.protocol === 'https:' ? [url.origin] : [];
  } catch {
    return [];
  }
}

/** GET /hosted/:id?token=...: the page (opening it starts a live session: created -> in_progress); GET /hosted/assets/*: its bundle. */
export function hostedRouter(flows: FlowService, sessions: SessionService, links: SignedLinks): Router {
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
      const flow = session && (await flows.get(session.tenantId, session.flowId).catch(() => null));
      if (!session || !flow || hostedLinkEnded(session, new Date())) {
        res.status(404).type('html').send('<!doctype html><html lang="en"><title>Not found</title><p>This verification link is not valid.</p></html>');
        return;
      }
      const styleNonce = randomBytes(16).toString('base64');
      res.setHeader('cache-control', 'no-store');
      // Framed only by the origins the flow allows (https only for live sessions); referrer-policy keeps the URL's token in this page.
      setPageSecurityHeaders(res, { frameAncestors: originsFor(flow, session.livemode, session.redirectUrl), imgOrigins: logoOrigin(flow.logoUrl), styleNonce, blobMedia: true });
      res.setHeader('permissions-policy', 'camera=(self), microphone=(), geolocation=()');
      res.type('html').send(renderHostedPage(session, flow, { locale: pickLocale(session.locale, (l) => req.acceptsLanguages(...l)), styleNonce, hostedUrl: links.url(id) }));
    } catch (err) {
      next(err);
    }
  });
  return router;
}
