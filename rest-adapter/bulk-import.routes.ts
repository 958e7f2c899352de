import { Readable } from 'node:stream';
import type { Request } from 'express';
import { BULK_IMPORT_MAX_BYTES } from '../src/bulk-import/bulk-import.service';
import { DomainError } from '../src/errors';
import { streamedBody } from '../http/streamed-body';
import { bulkRecordsOf, type BulkFormat } from './bulk-import.request';
import { presentBulkImport, presentBulkResult } from './bulk-import.presenter';
import { defineRoute, tenantKeyOf, type RouteRecord } from './route-record';

const NDJSON = ['application/x-ndjson', 'application/jsonl', 'application/json-seq'];
const JSON_TYPES = ['application/json', 'application/*+json'];

/** Which of the two accepted bodies this is; 415 for any other type. */
function bulkFormatOf(req: Request): BulkFormat {
  if (req.is(NDJSON)) return 'ndjson';
  if (req.is(JSON_TYPES)) return 'json';
  throw new DomainError('unsupported_media_type', 'Send the records as application/x-ndjson or as application/json {"records": [...]}');
}

// The results carry hosted links, which only a key that may create sessions sees (D17).
const CREATE = { kind: 'tenant_key' as const, scope: 'sessions:write' as const, owns: null };
const OWN_IMPORT = { ...CREATE, owns: 'bulk_import' as const };
const TAGS = ['bulk-import'] as const;
const IMPORT_ID = { id: { component: 'BulkImportId' } };

/**
 * /v1/admin/bulk-import (docs/decisions.md D17). Not GraphQL operations: the body is up to 25 MiB of
 * records, read as a stream, and the results are a stream; the service does the work, these records
 * read and present.
 */
export const BULK_IMPORT_ROUTES: readonly RouteRecord[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/admin/bulk-import',
    guard: CREATE,
    bucket: 'bulk_import',
    body: { read: 'stream' },
    responses: { 202: { description: 'Accepted; the job runs in the background', schema: { component: 'BulkImport' } } },
    errors: ['BadRequest', 'PayloadTooLarge', 'UnsupportedMediaType'],
    doc: { operationId: 'createBulkImport', tags: TAGS, summary: 'Create up to 10,000 sessions from one upload' },
    handler: async ({ req, ctx, services }) => {
      // The body streams into the service record by record: never held whole, read no further than record 10,001.
      const body = streamedBody(req, BULK_IMPORT_MAX_BYTES, `A bulk import body is at most ${BULK_IMPORT_MAX_BYTES} bytes (25 MiB)`);
      const records = bulkRecordsOf(body, bulkFormatOf(req));
      return { status: 202, body: presentBulkImport(await services.bulkImports.start(tenantKeyOf(ctx), records)) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/admin/bulk-import/:id',
    guard: OWN_IMPORT,
    bucket: 'default',
    params: IMPORT_ID,
    responses: { 200: { description: 'The import', schema: { component: 'BulkImport' } } },
    errors: ['NotFound'],
    doc: { operationId: 'getBulkImport', tags: TAGS, summary: "Read a bulk import's progress" },
    handler: async ({ req, ctx, services }) => ({ status: 200, body: presentBulkImport(await services.bulkImports.get(tenantKeyOf(ctx), String(req.params.id))) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/admin/bulk-import/:id/results',
    guard: OWN_IMPORT,
    bucket: 'default',
    params: IMPORT_ID,
    responses: { 200: { description: 'The results, one JSON object per line', schema: { component: 'BulkImportResult' }, mediaType: 'application/x-ndjson' } },
    errors: ['NotFound'],
    doc: { operationId: 'getBulkImportResults', tags: TAGS, summary: 'Stream one result line per record' },
    handler: async ({ req, ctx, services }) => {
      const results = await services.bulkImports.results(tenantKeyOf(ctx), String(req.params.id)); // 404 before the stream starts
      const lines = Readable.from(
        (async function* () {
          for await (const r of results) yield `${JSON.stringify(presentBulkResult(r, services.hostedUrl))}\n`;
        })(),
      );
      return { status: 200, type: 'application/x-ndjson', stream: lines };
    },
  }),
];
