import type { SessionFlow } from '../sessions/session-flows';
import type { DataSource } from 'typeorm';
import type { SessionEntity } from '../../entities';
import type { TenantKeyActor } from '../auth/actor';
import type { SecretBox } from '../crypto/secret-box';
import type { JobQueue } from '../jobs/job-queue';
import type { Logger } from '../logger';
import type { MailOutbox } from '../mail/mail-outbox';
import type { CreateSessionCommand, SessionService } from '../sessions/session.service';
import { BULK_IMPORT_JOB, BULK_IMPORT_RETRY, type BulkRecordOutcome, type StoredRecord } from './bulk-import.service';
import { bulkImportMail } from './bulk-import.mail';

export type BulkImportData = { importId: string };

/** Mails put in the outbox per statement. */
const MAIL_PAGE = 500;

type PendingRow = { line: number; record_sealed: string | null };
type Outcome = { line: number; outcome: BulkRecordOutcome; sessionId: string | null; code: string | null; message: string | null };

/**
 * Turns an import's stored records into sessions (docs/api-behaviour.md, "Bulk import"), a batch at
 * a time. Each batch is one transaction (SessionService.createMany): the sessions, built by the
 * create's own rules, with their outbox rows and webhook work, the records' outcomes and the import's counters. A run killed mid-batch loses the batch's
 * uncommitted work only; the next run (pg-boss takes the job back when its lease runs out) starts
 * from the first record with no outcome, so no record makes a session twice.
 *
 * A run works for a quarter of its lease, then queues its continuation and ends, so a long import
 * never outlives the lease of the run that holds it.
 */
export class BulkImportJob {
  constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
    private readonly sessions: SessionService,
    private readonly mail: Pick<MailOutbox, 'sendMany'>,
    private readonly hostedUrl: (sessionId: string) => string,
    private readonly jobs: Pick<JobQueue, 'send'>,
    private readonly logger: Logger,
    private readonly opts: { batchSize: number; leaseSeconds: number },
  ) {}

  async run({ importId }: BulkImportData): Promise<void> {
    const [job]: { tenant_id: string; livemode: boolean; status: string }[] = await this.db.query(`SELECT tenant_id, livemode, status FROM bulk_imports WHERE id = $1`, [importId]);
    if (!job) return; // its tenant was deleted meanwhile
    const actor: TenantKeyActor = { kind: 'tenant_key', tenantId: job.tenant_id, keyId: `bulk-import:${importId}`, livemode: job.livemode, scopes: ['sessions:write'] };
    const flows = new Map<string, Promise<SessionFlow>>();
    const until = Date.now() + (this.opts.leaseSeconds * 1000) / 4;
    while (job.status !== 'completed') {
      const pending: PendingRow[] = await this.db.query(
        `SELECT line, record_sealed FROM bulk_import_records WHERE import_id = $1 AND outcome IS NULL ORDER BY line LIMIT $2`,
        [importId, this.opts.batchSize],
      );
      if (pending.length === 0) break;
      await this.processBatch(actor, importId, pending, flows);
      if (Date.now() > until) return this.continueLater(importId);
    }
    const done: { total: number; created: number; duplicates: number; rejected: number }[] = await this.db.query(
      `UPDATE bulk_imports SET status = 'completed', completed_at = now() WHERE id = $1 AND status <> 'completed' RETURNING total, created, duplicates, rejected`,
      [importId],
    );
    if (done[0]) this.logger.info({ import_id: importId, ...done[0] }, 'bulk import completed');
    // Mail after every session exists: the links leave in the outbox's batches, and no session waits on them.
    if (!(await this.sendOwedMail(importId, job.tenant_id, until))) return this.continueLater(importId);
  }

  /** This run's share of the lease is spent: a fresh job resumes where this one's last commit left off. */
  private async continueLater(importId: string): Promise<void> {
    await this.jobs.send(BULK_IMPORT_JOB, { importId }, { expireInSeconds: this.opts.leaseSeconds, retry: BULK_IMPORT_RETRY });
  }

  private async processBatch(actor: TenantKeyActor, importId: string, pending: PendingRow[], flows: Map<string, Promise<SessionFlow>>): Promise<void> {
    const outcomes: Outcome[] = [];
    const commands: { key: number; command: CreateSessionCommand }[] = [];
    for (const row of pending) {
      if (row.record_sealed) commands.push({ key: row.line, command: (JSON.parse(this.box.open(row.record_sealed)) as StoredRecord).command });
      else outcomes.push({ line: row.line, outcome: 'rejected', sessionId: null, code: 'invalid_request', message: 'The record is not a create-session body' });
    }
    await this.sessions.createMany(
      actor,
      commands,
      async ({ m, built, refused, existingReferences, write }) => {
        for (const { key, error } of refused) outcomes.push({ line: key, outcome: 'rejected', sessionId: null, code: error.code, message: error.message });
        // Batches of one tenant and mode take turns, so two imports cannot both find a reference_id free.
        await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`bulk-import:${actor.tenantId}:${actor.livemode}`]);
        // Another run of this import (one whose lease ran out while it still worked) may have done these records.
        const still: { line: number }[] = await m.query(`SELECT line FROM bulk_import_records WHERE import_id = $1 AND line = ANY($2::int[]) AND outcome IS NULL`, [importId, pending.map((p) => p.line)]);
        const open = new Set(still.map((r) => r.line));
        const taken = await existingReferences(built.map((b) => b.session.referenceId).filter((r): r is string => r !== null));
        const fresh: SessionEntity[] = [];
        for (const { key: line, session } of built) {
          if (!open.has(line)) continue;
          const ref = session.referenceId;
          const existing = ref === null ? undefined : taken.get(ref);
          if (existing) {
            outcomes.push({ line, outcome: 'duplicate', sessionId: existing, code: 'duplicate', message: `reference_id already names session ${existing}` });
            continue;
          }
          if (ref !== null) taken.set(ref, session.id);
          fresh.push(session);
          outcomes.push({ line, outcome: 'created', sessionId: session.id, code: null, message: null });
        }
        const done = outcomes.filter((o) => open.has(o.line));
        await write(fresh);
        await m.query(
          `UPDATE bulk_import_records r
              SET outcome = u.outcome, session_id = u.session_id, error_code = u.error_code, error_message = u.error_message, record_sealed = NULL,
                  email_sealed = CASE WHEN u.outcome = 'created' THEN r.email_sealed END
             FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(line, outcome, session_id, error_code, error_message)
            WHERE r.import_id = $1 AND r.line = u.line`,
          [importId, done.map((o) => o.line), done.map((o) => o.outcome), done.map((o) => o.sessionId), done.map((o) => o.code), done.map((o) => o.message)],
        );
        const count = (k: BulkRecordOutcome) => done.filter((o) => o.outcome === k).length;
        await m.query(
          `UPDATE bulk_imports SET status = 'processing', created = created + $2, duplicates = duplicates + $3, rejected = rejected + $4 WHERE id = $1`,
          [importId, count('created'), count('duplicate'), count('rejected')],
        );
      },
      { flows, createdAt: new Date() },
    );
  }

  /**
   * Mails the hosted link to each created record's email, a page at a time (MailOutbox.sendMany); a
   * sealed address is dropped once its mail is in the outbox (a run killed between the two sends that
   * page again: at least once, never lost). False when the run's time is up before the last page.
   */
  private async sendOwedMail(importId: string, tenantId: string, until: number): Promise<boolean> {
    let tenantName: string | null = null;
    for (;;) {
      const owed: { line: number; session_id: string; email_sealed: string }[] = await this.db.query(
        `SELECT line, session_id, email_sealed FROM bulk_import_records
          WHERE import_id = $1 AND outcome = 'created' AND email_sealed IS NOT NULL ORDER BY line LIMIT $2`,
        [importId, MAIL_PAGE],
      );
      if (owed.length === 0) return true;
      tenantName ??= ((await this.db.query(`SELECT name FROM tenants WHERE id = $1`, [tenantId])) as { name: string }[])[0]?.name ?? '';
      const name = tenantName;
      // One read of the page's sessions (the reader coalesces concurrent reads into one statement).
      const sessions = await Promise.all(owed.map((o) => this.sessions.reader.byId(o.session_id)));
      // A session erased meanwhile (its user asked) gets no mail.
      const live = owed.flatMap((o, i) => {
        const s = sessions[i];
        return s?.expiresAt ? [{ ...o, locale: s.locale, expiresAt: s.expiresAt }] : [];
      });
      await this.mail.sendMany(live.map((o) => ({ to: this.box.open(o.email_sealed), ...bulkImportMail({ tenantName: name, url: this.hostedUrl(o.session_id), locale: o.locale, expiresAt: new Date(o.expiresAt) }) })));
      await this.db.query(`UPDATE bulk_import_records SET email_sealed = NULL WHERE import_id = $1 AND line = ANY($2::int[])`, [importId, owed.map((o) => o.line)]);
      if (Date.now() > until) return false;
    }
  }
}
