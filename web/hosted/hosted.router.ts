import { Router } from 'express';
import { DataSource } from 'typeorm';
import { FlowEntity } from '../../entities';
import { SESSION_ID_PATTERN } from '../../src/ids';
import type { SessionService } from '../../src/sessions/session.service';
import type { HostedLinks } from '../../src/hosted/hosted-links';
import { renderHostedPage } from './hosted-page';

/** GET /hosted/:id?token=...: opening the page starts a live session (created -> in_progress). */
export function hostedRouter(db: DataSource, sessions: SessionService, links: HostedLinks): Router {
  const router = Router();
  router.get('/hosted/:id', async (req, res, next) => {
    try {
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
      res.setHeader('referrer-policy', 'no-referrer'); // the URL carries the token
      res.type('html').send(renderHostedPage(session, flow));
    } catch (err) {
      next(err);
    }
  });
  return router;
}
