import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { setPageSecurityHeaders } from './security-headers';

/** Cached by browsers for a day, then revalidated by its content hash (a 304 costs a few bytes). */
const MAX_AGE_SECONDS = 24 * 3600;

/** Charges one request of a client address (GraphiQL is public: it is counted per IP in `default`); false when it was refused and answered. */
export type ChargeClient = (req: Request, res: Response) => Promise<boolean>;

/**
 * GraphiQL for browsers, rendered once from the package (no CDN, so it works offline) and
 * served gzipped with its content hash as ETag. API clients sending GET /graphql?query=... pass
 * through to the GraphQL server.
 */
export function graphiql(charge?: ChargeClient) {
  const html = renderGraphiQL({ endpoint: '/graphql', subscriptionsProtocol: 'WS', title: 'Identity verification GraphQL' } as never);
  const gzipped = gzipSync(html);
  const etag = `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"`;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (req.method !== 'GET' || req.query.query !== undefined || req.accepts(['text/html', 'application/json']) !== 'text/html') {
      return next();
    }
    try {
      if (charge && !(await charge(req, res))) return;
    } catch (err) {
      return next(err);
    }
    setPageSecurityHeaders(res, { inlineBundle: true });
    res.setHeader('cache-control', `public, max-age=${MAX_AGE_SECONDS}`);
    res.setHeader('etag', etag);
    res.setHeader('vary', 'accept-encoding, accept');
    if (req.header('if-none-match')?.split(/\s*,\s*/).includes(etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (req.acceptsEncodings('gzip')) {
      res.setHeader('content-encoding', 'gzip');
      res.end(gzipped);
    } else {
      res.end(html);
    }
  };
}
