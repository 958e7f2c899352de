import type { Express, NextFunction, Request, Response } from 'express';
import { randomBase62 } from '../src/ids';
import { type Logger, unredactedSibling } from '../src/logger';

const INCOMING_ID = /^[A-Za-z0-9_.:-]{8,64}$/;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      id: string;
      log: Logger;
    }
  }
}

/**
 * Gives every request an id (a well-formed incoming `request-id` is kept, for tracing across
 * services), echoes it in the response header, and logs one line per response. Only the path is
 * logged: query strings can carry hosted-page tokens.
 */
export function requestContext(app: Express, logger: Logger) {
  // The child logger is built on first use, on the request prototype: most requests log only the line below.
  Object.defineProperty(app.request, 'log', {
    get(this: Request & { childLog?: Logger }): Logger {
      return (this.childLog ??= logger.child({ request_id: this.id }));
    },
    configurable: true,
  });
  const accessLog = unredactedSibling(logger); // method, path, status and duration only
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.header('request-id');
    req.id = incoming && INCOMING_ID.test(incoming) ? incoming : `req_${randomBase62(20)}`;
    res.setHeader('request-id', req.id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      accessLog.info({ request_id: req.id, method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, duration_ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}
