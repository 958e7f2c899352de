import type { BulkImport, BulkRecordResult } from '../src/bulk-import/bulk-import.service';

/** The import job as `POST /v1/admin/bulk-import` and `GET /v1/admin/bulk-import/{id}` answer it (openapi.yaml `BulkImport`). */
export function presentBulkImport(b: BulkImport) {
  return {
    id: b.id,
    object: 'bulk_import' as const,
    livemode: b.livemode,
    status: b.status,
    total: b.total,
    created: b.created,
    duplicates: b.duplicates,
    rejected: b.rejected,
    created_at: b.createdAt.toISOString(),
    completed_at: b.completedAt?.toISOString() ?? null,
  };
}

/** One NDJSON line of the results (openapi.yaml `BulkImportResult`): `url` only for a session this import created. */
export function presentBulkResult(r: BulkRecordResult, hostedUrl: (sessionId: string) => string) {
  return {
    line: r.line,
    reference_id: r.referenceId,
    outcome: r.outcome ?? ('pending' as const),
    ...(r.sessionId ? { session_id: r.sessionId } : {}),
    ...(r.outcome === 'created' && r.sessionId ? { url: hostedUrl(r.sessionId) } : {}),
    ...(r.error ? { error: r.error } : {}),
  };
}
