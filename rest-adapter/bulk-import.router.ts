import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Request, Router } from 'express';
import { BULK_IMPORT_MAX_BYTES, type BulkImportService } from '../src/bulk-import/bulk-import.service';
import { requireTenantKey } from '../src/auth/auth.service';
import { streamedBody } from '../http/streamed-body';
import { bulkRecordsOf, type BulkFormat } from './bulk-import.request';
import { answeringDomainErrors, restRoute } from './rest-route';
import { DomainError } from '../src/errors';
import { presentBulkImport, presentBulkResult } from './bulk-import.presenter';

const NDJSON = ['application/x-ndjson', 'application/jsonl', 'application/json-seq'];
const JSON_TYPES = ['application/json', 'application/*+json'];

/** Which of the two accepted bodies this is; 415 for any other type. */
function bulkFormatOf(req: Request): BulkFormat {
  if (req.is(NDJSON)) return 'ndjson';
  if (req.is(JSON_TYPES)) return 'json';
  throw new DomainError('unsupported_media_type', 'Send the records as application/x-ndjson or as application/json {"records": [...]}');
}

/**
 * /v1/admin/bulk-import (docs/decisions.md D17). Not GraphQL operations: the body is up to 25 MiB of
 * records, read as a stream, and the results are a stream; the service does the work, these routes
 * read and present.
 */
export function bulkImportRouter(service: BulkImportService, hostedUrl: (sessionId: string) => string, router: Router = Router()): Router {
  router.post(
    '/admin/bulk-import',
    restRoute(async (req, ctx) => {
      const actor = requireTenantKey(ctx.actor, 'sessions:write');
      // The body streams into the service record by record: never held whole, read no further than record 10,001.
      const body = streamedBody(req, BULK_IMPORT_MAX_BYTES, `A bulk import body is at most ${BULK_IMPORT_MAX_BYTES} bytes (25 MiB)`);
      const records = bulkRecordsOf(body, bulkFormatOf(req));
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
