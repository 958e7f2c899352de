import fs from 'node:fs';
import path from 'node:path';
import express from 'express';
import { setPageSecurityHeaders } from '../http/security-headers';

/**
 * The copyable browser example (examples/) and the graphql-ws browser build it loads, served from
 * this origin so the page works offline and without a CDN. Files are read once at start-up.
 */
export function examplesRouter(projectRoot: string): express.Router {
  const router = express.Router();
  const page = fs.readFileSync(path.join(projectRoot, 'examples', 'session-status.html'));
  const client = fs.readFileSync(path.join(path.dirname(require.resolve('graphql-ws/package.json')), 'umd', 'graphql-ws.min.js'));
  router.get('/session-status.html', (_req, res) => {
    setPageSecurityHeaders(res, { inlineBundle: true });
    res.type('text/html').set('cache-control', 'no-cache').send(page);
  });
  router.get('/graphql-ws.min.js', (_req, res) => {
    res.type('text/javascript').set('cache-control', 'public, max-age=3600').send(client);
  });
  return router;
}
