import { logIdOf } from '../../entities/audit-canonical';
import { assertNoPersonalData } from './audit-detail';
import type { AppendedEntry, AuditEntryInput } from './audit-entry';

type Waiter = { entry: AuditEntryInput; resolve(appended: AppendedEntry): void; reject(err: unknown): void };

/** Entries in one transaction at most: 11 parameters each keeps a statement far below PostgreSQL's 65,535. */
const MAX_BATCH = 256;

/**
 * Appends the audit entries of many concurrent callers in few transactions (a group commit), for
 * AuditLogService.appendGrouped: `commit` writes one batch in one transaction. A
 * log's appends are serialized anyway (its head row is locked by each), so one append at a time
 * per log leaves every other caller holding a pool connection while it waits for the lock. Here a
 * log has at most one transaction in flight; the entries that arrive meanwhile wait unsent and go
 * together, in arrival order and chained as one `appendMany`, in the next. Each caller's promise
 * settles when its own entry has committed, or with its transaction's error: a caller that acts
 * only once its entry is durable (an evidence open is served only once audited) still does.
 */
export class AuditGroupCommit {
  private readonly logs = new Map<string, { waiting: Waiter[]; busy: boolean }>();

  constructor(private readonly commitBatch: (entries: AuditEntryInput[]) => Promise<AppendedEntry[]>) {}

  append(entry: AuditEntryInput): Promise<AppendedEntry> {
    return new Promise((resolve, reject) => {
      // Checked here, so an entry that would be refused fails alone, not the batch it would have joined.
      assertNoPersonalData(entry.detail ?? {});
      const logId = logIdOf(entry.tenantId, entry.tenantId === null ? null : entry.livemode);
      let log = this.logs.get(logId);
      if (!log) this.logs.set(logId, (log = { waiting: [], busy: false }));
      log.waiting.push({ entry, resolve, reject });
      if (!log.busy) {
        log.busy = true;
        // At the end of this turn of the event loop, so the opens that arrived in it go together.
        setImmediate(() => this.commit(logId));
      }
    });
  }

  private commit(logId: string): void {
    const log = this.logs.get(logId)!;
    const batch = log.waiting.splice(0, MAX_BATCH);
    this.commitBatch(batch.map((w) => w.entry))
      .then(
        (appended) => batch.forEach((w, i) => w.resolve(appended[i])),
        (err: unknown) => batch.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        if (log.waiting.length > 0) return this.commit(logId);
        log.busy = false;
        this.logs.delete(logId);
      });
  }
}
