import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { NextFunction, Request, Response, Router } from 'express';
import { BULK_IMPORT_MAX_BYTES, type BulkImportService } from '../src/bulk-import/bulk-import.service';
import { requireTenantKey } from '../src/auth/auth.service';
import { sendError } from '../http/error-response';
import { bulkRecordsOf } from './bulk-import.request';
import { answeringDomainErrors, restRoute } from './rest-route';
import { DomainError } from '../src/errors';
import { presentBulkImport, presentBulkResult } from './bulk-import.presenter';

const NDJSON = ['application/x-ndjson', 'application/jsonl', 'application/json-seq'];
const JSON_TYPES = ['application/json', 'application/*+json'];

const readRaw = express.raw({ limit: BULK_IMPORT_MAX_BYTES, type: () => true });

/** The body as bytes, up to 25 MiB (D8: 413 past it), of one of the two accepted types (415 otherwise). */
function bulkBody(req: Request, res: Response, next: NextFunction): void {
  if (!req.is([...NDJSON, ...JSON_TYPES])) return sendError(res, 'unsupported_media_type', 'Send the records as application/x-ndjson or as application/json {"records": [...]}');
  readRaw(req, res, (err?: unknown) => {
    if (!err) return next();
    if ((err as { type?: string }).type === 'entity.too.large') return sendError(res, 'payload_too_large', `A bulk import body is at most ${BULK_IMPORT_MAX_BYTES} bytes (25 MiB)`);
    next(err);
  });
}

/**
 * /v1/admin/bulk-import (DECISIONS.md D17). Not GraphQL operations: the body is up to 25 MiB of
 * records and the results are a stream; the service does the work, these routes read and present.
 */
export function bulkImportRouter(service: BulkImportService, hostedUrl: (sessionId: string) => string, router: Router = Router()): Router {
  router.post(
    '/admin/bulk-import',
    bulkBody,
    restRoute(async (req, ctx) => {
      const actor = requireTenantKey(ctx.actor, 'sessions:write');
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (body.length === 0) throw new DomainError('invalid_request', 'The request body is empty: send 1 to 10,000 records');
      const records = bulkRecordsOf(body, req.is(NDJSON) ? 'ndjson' : 'json');
      return { status: 202, body: presentBulkImport(await service.start(actor, records)) };
    }),
  );

  router.get(
    '/admin/bulk-import/:id',
    restRoute(async (req, ctx) => ({ status: 200, body: presentBulkImport(await service.get(requireTenantKey(ctx.actor, 'sessions:write'), String(req.params.id))) })),
  );

  router.get(
    '/admin/bulk-import/:id/results',
    answeringDomainErrors(async (req, res) => {
      const actor = requireTenantKey(req.auth.context?.actor ?? null, 'sessions:write');
      const results = await service.results(actor, String(req.params.id)); // 404 before the stream starts
      res.status(200).type('application/x-ndjson');
      const lines = Readable.from((async function* () {
        for await (const r of results) yield `${JSON.stringify(presentBulkResult(r, hostedUrl))}\n`;
      })());
      // pipeline waits for the socket to take each line, and stops reading when the client goes away.
      await pipeline(lines, res).catch((err: unknown) => {
        // Headers are out: the client sees a cut stream, the log says why.
        if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') req.log.error({ err }, 'bulk import results stream failed');
      });
    }),
  );

  return router;
}
