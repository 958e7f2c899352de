import { setImmediate } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import type { TenantKeyActor, TenantScope } from '../auth/actor';
import type { SecretBox } from '../crypto/secret-box';
import { DomainError, notFound, type ErrorCode } from '../errors';
import { newId } from '../ids';
import type { JobQueue, RetryPolicy } from '../jobs/job-queue';
import type { CreateSessionCommand } from '../sessions/session.service';
import { isEmail, normaliseEmail } from '../mail/email-address';
import { hasUnstorableCharacters, toStorableText } from '../validation/postgres-text';
import { systemClock, type Clock } from '../clock';

/** docs/decisions.md D17: 1 to 10,000 records, at most 25 MiB of body. */
export const BULK_IMPORT_MAX_RECORDS = 10_000;
export const BULK_IMPORT_MAX_BYTES = 25 * 1024 * 1024;
export const BULK_IMPORT_JOB = 'bulk-import';
/** A run that died (its lease ran out) is taken back and run again; each run resumes where the last commit left off. */
export const BULK_IMPORT_RETRY: RetryPolicy = { limit: 50, delaySeconds: 2, backoff: true, maxDelaySeconds: 120 };
export const BULK_IMPORT_ID_PATTERN = /^bimp_[0-9A-Za-z]{16,}$/;

export type BulkImportStatus = 'queued' | 'processing' | 'completed';

export type BulkImport = {
  id: string;
  livemode: boolean;
  status: BulkImportStatus;
  total: number;
  created: number;
  duplicates: number;
  rejected: number;
  createdAt: Date;
  completedAt: Date | null;
};

/**
 * One record of an import as the transport read it: its line (1-based: the NDJSON line, or the
 * position in `records`), the create command it names, or why it names none.
 */
export type BulkRecordInput = {
  line: number;
  referenceId: string | null;
  command?: CreateSessionCommand;
  email?: string | null;
  error?: DomainError;
};

export type BulkRecordOutcome = 'created' | 'duplicate' | 'rejected';

/** One line of the results stream (`GET /v1/admin/bulk-import/{id}/results`); `url` is built by the caller (the hosted page's SignedLinks). */
export type BulkRecordResult = {
  line: number;
  referenceId: string | null;
  outcome: BulkRecordOutcome | null;
  sessionId: string | null;
  error: { code: string; message: string } | null;
};

/** What the job stores of a record until it is processed (sealed: metadata and email are personal data). */
export type StoredRecord = { command: CreateSessionCommand };

type StoredRow = {
  line: number;
  referenceId: string | null;
  recordSealed: string | null;
  emailSealed: string | null;
  outcome: BulkRecordOutcome | null;
  errorCode: ErrorCode | null;
  errorMessage: string | null;
};

type ImportRow = { id: string; livemode: boolean; status: BulkImportStatus; total: number; created: number; duplicates: number; rejected: number; created_at: Date; completed_at: Date | null };

/** Records read (parsed, checked and sealed) between two turns of the event loop. */
const READ_BATCH = 250;
/** Rows per INSERT when the records are stored (8 parameters each as arrays: one statement per chunk). */
const STORE_CHUNK = 2_000;
/** Result lines read per page of the results stream (keyset on `line`). */
const RESULTS_PAGE = 1_000;

/**
 * Bulk import (docs/api-behaviour.md, "Bulk import"): stores an import's records sealed and queues
 * the job that turns them into sessions (BulkImportJob), all in one transaction, so an accepted
 * import is always processed, after a restart too. Reads are scoped to the tenant and mode of the
 * key: another tenant's import, or the other mode's, is `not_found`.
 */
/** How often a progress reader reads its import's counters. */
const PROGRESS_POLL_MS = 250;

export class BulkImportService {
  constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
    private readonly jobs: Pick<JobQueue, 'send'>,
    /** Seconds a job run holds its job (BULK_IMPORT_LEASE_SECONDS). */
    private readonly leaseSeconds: number,
    private readonly now: Clock = systemClock,
  ) {}

  /**
   * Reads the records as the transport hands them over (a stream: the body is never held whole) and
   * seals each at once; record 10,001 ends the import with `too_many_records` before anything is
   * stored, and the transport stops reading there. Yields to the event loop every READ_BATCH records,
   * so other requests are served while a large body is read.
   */
  async start(actor: TenantKeyActor, records: AsyncIterable<BulkRecordInput>): Promise<BulkImport> {
    const rows: StoredRow[] = [];
    for await (const r of records) {
      if (rows.length === BULK_IMPORT_MAX_RECORDS) {
        throw new DomainError('too_many_records', `Record ${BULK_IMPORT_MAX_RECORDS + 1} (line ${r.line}) is one too many: an import holds at most ${BULK_IMPORT_MAX_RECORDS} records; nothing was imported`);
      }
      rows.push(this.storedRow(r));
      if (rows.length % READ_BATCH === 0) await setImmediate();
    }
    if (rows.length === 0) throw new DomainError('invalid_request', 'The import holds no records: send 1 to 10,000');
    const id = newId('bimp');
    const createdAt = this.now();
    const rejected = rows.filter((r) => r.outcome === 'rejected').length;
    const pending = rows.length - rejected;
    await this.db.transaction(async (m) => {
      await m.query(
        `INSERT INTO bulk_imports (id, tenant_id, livemode, status, total, rejected, created_at, completed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [id, actor.tenantId, actor.livemode, pending ? 'queued' : 'completed', rows.length, rejected, createdAt, pending ? null : createdAt],
      );
      for (let i = 0; i < rows.length; i += STORE_CHUNK) {
        const chunk = rows.slice(i, i + STORE_CHUNK);
        await m.query(
          `INSERT INTO bulk_import_records (import_id, tenant_id, livemode, line, reference_id, record_sealed, email_sealed, outcome, error_code, error_message)
           SELECT $1, $9, $10, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`,
          [id, chunk.map((r) => r.line), chunk.map((r) => r.referenceId), chunk.map((r) => r.recordSealed), chunk.map((r) => r.emailSealed), chunk.map((r) => r.outcome), chunk.map((r) => r.errorCode), chunk.map((r) => r.errorMessage), actor.tenantId, actor.livemode],
        );
      }
      if (pending) await this.jobs.send(BULK_IMPORT_JOB, { importId: id }, { within: m, expireInSeconds: this.leaseSeconds, retry: BULK_IMPORT_RETRY });
    });
    return { id, livemode: actor.livemode, status: pending ? 'queued' : 'completed', total: rows.length, created: 0, duplicates: 0, rejected, createdAt, completedAt: pending ? null : createdAt };
  }

  /** The import if it is the scope's; `not_found` otherwise (no existence oracle, D6). */
  async get(scope: TenantScope, id: string): Promise<BulkImport> {
    const found = await this.find(scope, id);
    if (!found) throw notFound('Bulk import');
    return found;
  }

  /**
   * The import as it is, then again whenever its counters or status change, until it completes (the
   * `bulkImport` subscription). Read from the database every PROGRESS_POLL_MS, so every instance reports
   * the same progress whichever one runs the job.
   */
  async *progress(scope: TenantScope, first: BulkImport): AsyncGenerator<BulkImport> {
    let last = first;
    yield first;
    while (last.status !== 'completed') {
      await new Promise((r) => setTimeout(r, PROGRESS_POLL_MS));
      const now = await this.find(scope, first.id);
      if (!now) return;
      if (now.status !== last.status || now.created !== last.created || now.duplicates !== last.duplicates || now.rejected !== last.rejected) yield now;
      last = now;
    }
  }

  async find(scope: TenantScope, id: string): Promise<BulkImport | null> {
    if (!BULK_IMPORT_ID_PATTERN.test(id)) return null;
    const rows: ImportRow[] = await this.db.query(
      `SELECT id, livemode, status, total, created, duplicates, rejected, created_at, completed_at FROM bulk_imports WHERE id = $1 AND tenant_id = $2 AND livemode = $3`,
      [id, scope.tenantId, scope.livemode],
    );
    return rows[0] ? toImport(rows[0]) : null;
  }

  /**
   * Every record's result in line order, read page by page (keyset on the line), so a 10,000-line
   * stream never sits whole in memory. Records not yet processed have a null outcome. The import is
   * found (or `not_found` thrown) before this resolves, so a caller can answer 404 before it streams.
   */
  async results(scope: TenantScope, id: string): Promise<AsyncGenerator<BulkRecordResult>> {
    await this.get(scope, id);
    return this.resultPages(id);
  }

  private async *resultPages(id: string): AsyncGenerator<BulkRecordResult> {
    let after = 0;
    for (;;) {
      const page: { line: number; reference_id: string | null; outcome: BulkRecordOutcome | null; session_id: string | null; error_code: string | null; error_message: string | null }[] = await this.db.query(
        `SELECT line, reference_id, outcome, session_id, error_code, error_message FROM bulk_import_records WHERE import_id = $1 AND line > $2 ORDER BY line LIMIT $3`,
        [id, after, RESULTS_PAGE],
      );
      for (const r of page) {
        yield { line: r.line, referenceId: r.reference_id, outcome: r.outcome, sessionId: r.session_id, error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null };
      }
      if (page.length < RESULTS_PAGE) return;
      after = page[page.length - 1].line;
    }
  }

  /** A record as it is stored: sealed when it names a session to create, else its rejection (text PostgreSQL can store: a reference with a NUL is dropped). */
  private storedRow(r: BulkRecordInput): StoredRow {
    const referenceId = typeof r.referenceId === 'string' && r.referenceId.length <= 255 && !hasUnstorableCharacters(r.referenceId) ? r.referenceId : null;
    const base: StoredRow = { line: r.line, referenceId, recordSealed: null, emailSealed: null, outcome: null, errorCode: null, errorMessage: null };
    let error = r.error ?? (r.command ? null : new DomainError('invalid_request', 'The record is not a create-session body'));
    if (!error && r.email != null && (typeof r.email !== 'string' || !isEmail(r.email))) error = new DomainError('invalid_request', 'email must be a valid email address');
    if (error) return { ...base, outcome: 'rejected', errorCode: error.code, errorMessage: toStorableText(error.message) };
    const stored: StoredRecord = { command: r.command! };
    return { ...base, recordSealed: this.box.seal(JSON.stringify(stored)), emailSealed: r.email ? this.box.seal(normaliseEmail(r.email)) : null };
  }
}

export function toImport(r: ImportRow): BulkImport {
  return {
    id: r.id,
    livemode: r.livemode,
    status: r.status,
    total: Number(r.total),
    created: Number(r.created),
    duplicates: Number(r.duplicates),
    rejected: Number(r.rejected),
    createdAt: new Date(r.created_at),
    completedAt: r.completed_at ? new Date(r.completed_at) : null,
  };
}
