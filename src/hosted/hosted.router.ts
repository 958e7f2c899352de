import { Router } from 'express';
import { DataSource } from 'typeorm';
import { FlowEntity } from '../../entities';
import { SESSION_ID_PATTERN } from '../ids';
import type { SessionService } from '../sessions/session.service';
import type { HostedLinks } from './hosted-links';
import { renderHostedPage } from './hosted-page';
import { setPageSecurityHeaders } from '../../http/security-headers';

/** GET /hosted/:id?token=...: opening the page starts a live session (created -> in_progress). */
export function hostedRouter(db: DataSource, sessions: SessionService, links: HostedLinks): Router {
  const router = Router();
  router.get('/hosted/:id', async (req, res, next) => {
    try {
      setPageSecurityHeaders(res); // the refusal pages too; the page itself adds the logo's origin below
      const id = req.params.id;
      const token = typeof req.query.token === 'string' ? req.query.token : '';
      if (!SESSION_ID_PATTERN.test(id) || !links.verify(id, token)) {
        res.status(404).type('html').send('<!doctype html><p>This verification link is not valid.</p>');
        return;
      }
      const session = await sessions.markOpened(id);
      const flow = session && (await db.getRepository(FlowEntity).findOneBy({ id: session.flowId }));
      if (!session || !flow) {
        res.status(404).type('html').send('<!doctype html><p>This verification link is not valid.</p>');
        return;
      }
      res.setHeader('cache-control', 'no-store');
      // No referrer (the URL carries the token); no framing until flows name their allowed origins.
      setPageSecurityHeaders(res, { imgOrigins: logoOrigin(flow.logoUrl) });
      res.type('html').send(renderHostedPage(session, flow));
    } catch (err) {
      next(err);
    }
  });
  return router;
}

/** The origin of an https logo, which the page's CSP must allow; nothing for any other URL. */
function logoOrigin(logoUrl: string | null): string[] {
  if (!logoUrl || !/^https:\/\//.test(logoUrl)) return [];
  try {
    return [new URL(logoUrl).origin];
  } catch {
    return [];
  }
}
