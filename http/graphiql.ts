import { gzipSync } from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';

/**
 * GraphiQL for browsers, rendered once from the package (no CDN, so it works offline) and
 * served gzipped. API clients sending GET /graphql?query=... pass through to the GraphQL server.
 */
export function graphiql() {
  const html = renderGraphiQL({ endpoint: '/graphql', subscriptionsProtocol: 'WS', title: 'Identity verification GraphQL' } as never);
  const gzipped = gzipSync(html);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' || req.query.query !== undefined || req.accepts(['text/html', 'application/json']) !== 'text/html') {
      return next();
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.setHeader('cache-control', 'public, max-age=3600');
    res.setHeader('vary', 'accept-encoding, accept');
    if (req.acceptsEncodings('gzip')) {
      res.setHeader('content-encoding', 'gzip');
      res.end(gzipped);
    } else {
      res.end(html);
    }
  };
}
