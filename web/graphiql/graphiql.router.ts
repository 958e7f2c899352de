import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';
import { setPageSecurityHeaders } from '../../http/security-headers';

/** Written by scripts/build-graphiql.js (part of `npm run build`). */
const BUILT_PAGE = path.resolve(__dirname, 'graphiql.html.gz');

/** Cached by browsers for a day, then revalidated by its content hash (a 304 costs a few bytes). */
const MAX_AGE_SECONDS = 24 * 3600;

/** Charges one request of a client address (GraphiQL is public: it is counted per IP in `default`); false when it was refused and answered. */
export type ChargeClient = (req: Request, res: Response) => Promise<boolean>;

type Page = { gzipped: Buffer; etag: string };

/** Read on the first visit, then kept: the gzipped page is ~1 MB, the renderer it came from ~12 MB of heap. */
let page: Page | undefined;
function builtPage(): Page {
  if (!page) {
    const gzipped = fs.readFileSync(BUILT_PAGE);
    page = { gzipped, etag: `"${createHash('sha256').update(gzipped).digest('base64url').slice(0, 27)}"` };
  }
  return page;
}

/**
 * GraphiQL for browsers, rendered at build time from the package (no CDN, so it works offline)
 * and served gzipped with its content hash as ETag. API clients sending GET /graphql?query=...
 * pass through to the GraphQL server.
 */
export function graphiql(charge?: ChargeClient) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (req.method !== 'GET' || req.query.query !== undefined || req.accepts(['text/html', 'application/json']) !== 'text/html') {
      return next();
    }
    try {
      if (charge && !(await charge(req, res))) return;
    } catch (err) {
      return next(err);
    }
    let built: Page;
    try {
      built = builtPage();
    } catch (err) {
      return next(err);
    }
    const { gzipped, etag } = built;
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
      res.end(gunzipSync(gzipped)); // rare: every browser accepts gzip
    }
  };
}
