import { DataSource, EntityManager } from 'typeorm';
import type { OutboxEventEntity } from '../../entities';
import { SESSION_STATUS_CHANGED } from '../sessions/session-events';
import { SessionSql } from '../sessions/session.sql';
import type { AuditEntryInput } from '../audit/audit-entry';
import type { AuditLogService } from '../audit/audit-log.service';
import { ArtifactClass, isBiometricClass } from './artifact-classes';
import type { ArtifactStore, PurgedArtifact } from './artifact-store';
import type { BlobReaper } from './blob-reaper';
import { systemClock, type Clock } from '../clock';

/** Why artifacts were purged: written to the audit log (never free text). */
export type PurgeReason = 'retention_expired' | 'session_completed' | 'user_request' | 'user_deleted' | 'user_purged' | 'operator';

export type PurgeOutcome = {
  purged: number;
  byClass: Partial<Record<ArtifactClass, number>>;
  /** Artifacts purged per session id. */
  bySession: Record<string, number>;
  /** Ids of the `biometric.purged` events enqueued. */
  eventIds: string[];
  /** The same counts per tenant and mode (`<tenant_id>:<livemode>`), for the retention run report. */
  byScope: Record<string, { tenantId: string; livemode: boolean; byClass: Partial<Record<ArtifactClass, number>> }>;
  /** Blobs the purged rows named: deleted once the purge's transaction commits. */
  blobKeys: string[];
};

const empty = (): PurgeOutcome => ({ purged: 0, byClass: {}, bySession: {}, eventIds: [], byScope: {}, blobKeys: [] });

const BATCH = 500;

/** Statuses after which a session takes no more captures and no review needs its evidence. */
const ENDED_STATUSES: readonly string[] = ['success', 'failed', 'expired', 'withdrawn'];

/** An event a purge owes the tenant's webhook endpoints (`biometric.purged`). */
export type PurgeEvent = { tenantId: string; livemode: boolean; type: string; data: Record<string, unknown> };

/** Writes those events in the purge's transaction and returns their ids: the webhook dispatcher (src/webhooks/webhook.dispatcher.ts). */
export type PurgeEventSink = { enqueueObligations(events: PurgeEvent[], within: EntityManager): Promise<string[]> };

/**
 * The one place artifacts are purged (retention, session completion, erasure): in one transaction
 * per batch it deletes the bytes, keeps each row with `purged_at` and no personal data, writes one
 * tenant audit entry per session, and for the biometric classes enqueues `biometric.purged` per
 * session and class (an obligation: every endpoint of the tenant receives it) and appends it to
 * the tenant's and the service's audit logs. Purging an already purged artifact does nothing.
 *
 * The blobs go after the commit: at once when the purger runs its own transactions, and through a
 * job queued in the transaction otherwise (a caller's, e.g. the one that completes a session). A
 * crash in between leaves blobs no row names, which the orphan sweep deletes (src/vault/blob-reaper.ts).
 */
const isSessionEnd = (e: OutboxEventEntity): boolean => e.type === SESSION_STATUS_CHANGED && ENDED_STATUSES.includes(String(e.payload.status));

export class ArtifactPurger {
  constructor(
    private readonly db: DataSource,
    private readonly store: ArtifactStore,
    private readonly audit: AuditLogService,
    private readonly dispatcher: PurgeEventSink,
    opts: {
      now?: Clock;
      /** Deletes the purged blobs; null or left out when ciphertext lives in artifact_blobs (VAULT_STORE=postgres). */
      reaper?: BlobReaper | null;
    } = {},
  ) {
    this.now = opts.now ?? systemClock;
    this.reaper = opts.reaper ?? null;
  }

  private readonly now: Clock;
  private readonly reaper: BlobReaper | null;

  /** Runs `work` in its own transaction, then deletes the blobs it purged. */
  private async committed(work: (m: EntityManager) => Promise<PurgeOutcome>): Promise<PurgeOutcome> {
    const part = await this.db.transaction(work);
    if (this.reaper && part.blobKeys.length) await this.reaper.deleteUnreferenced(part.blobKeys);
    return part;
  }

  async purge(artifactIds: readonly string[], reason: PurgeReason): Promise<PurgeOutcome> {
    const total = empty();
    for (let i = 0; i < artifactIds.length; i += BATCH) {
      const part = await this.committed((m) => this.purgeWithin(m, artifactIds.slice(i, i + BATCH), reason));
      add(total, part);
    }
    return total;
  }

  /** Every unpurged artifact of these sessions (e.g. at completion with 0-day classes, or an erasure). */
  async purgeSessions(sessionIds: readonly string[], reason: PurgeReason, classes?: readonly ArtifactClass[]): Promise<PurgeOutcome> {
    if (sessionIds.length === 0) return empty();
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM artifacts WHERE session_id = ANY($1::text[]) AND purged_at IS NULL ${classes ? 'AND class = ANY($2::text[])' : ''}`,
      classes ? [sessionIds, classes] : [sessionIds],
    );
    return this.purge(
      rows.map((r) => r.id),
      reason,
    );
  }

  /** Every artifact past its `retain_until` (the hourly job, the CLI), in batches. */
  async purgeExpired(limit = 10_000): Promise<PurgeOutcome> {
    const total = empty();
    while (total.purged < limit) {
      const due = await this.store.due(this.now(), Math.min(BATCH, limit - total.purged));
      if (due.length === 0) break;
      const part = await this.committed((m) => this.purgeWithin(m, due, 'retention_expired'));
      add(total, part);
      if (part.purged === 0) break;
    }
    return total;
  }

  /**
   * 0-day artifacts (`purge_at_completion`) of sessions that already ended: those whose class was
   * tightened to 0 after the session expired, was withdrawn or was decided.
   */
  async purgeEndedZeroDay(limit = 10_000): Promise<PurgeOutcome> {
    const total = empty();
    while (total.purged < limit) {
      const rows: { id: string }[] = await this.db.query(
        `SELECT a.id FROM artifacts a
         WHERE a.purge_at_completion AND a.purged_at IS NULL AND ${SessionSql.statusIn('a.session_id', '$1::text[]')} LIMIT $2`,
        [ENDED_STATUSES, Math.min(BATCH, limit - total.purged)],
      );
      if (rows.length === 0) break;
      const part = await this.committed((m) =>
        this.purgeWithin(
          m,
          rows.map((r) => r.id),
          'session_completed',
        ),
      );
      add(total, part);
      if (part.purged === 0) break;
    }
    return total;
  }

  /**
   * The session service's outbox handler: when a session ends, its 0-day artifacts go in the same
   * transaction. A session in manual_review keeps them until the review decides.
   */
  readonly onOutbox = Object.assign(async (m: EntityManager, events: OutboxEventEntity[]): Promise<void> => {
    const ended = events.filter(isSessionEnd).map((e) => e.sessionId!);
    if (ended.length === 0) return;
    const rows: { id: string }[] = await m.query(`SELECT id FROM artifacts WHERE session_id = ANY($1::text[]) AND purge_at_completion AND purged_at IS NULL`, [ended]);
    if (rows.length === 0) return;
    const outcome = await this.purgeWithin(
      m,
      rows.map((r) => r.id),
      'session_completed',
    );
    // The caller's transaction may still roll back: the blobs go in a job that exists only if it commits.
    await this.reaper?.deleteAfterCommit(m, outcome.blobKeys);
  }, { wants: isSessionEnd });

  /** Purges inside `m`; the blobs the purged rows named are the caller's to delete once `m` commits (`blobKeys`). */
  private async purgeWithin(m: EntityManager, artifactIds: readonly string[], reason: PurgeReason): Promise<PurgeOutcome> {
    const at = this.now();
    const purged = await this.store.purgeMany(artifactIds, at, m);
    const outcome: PurgeOutcome = { ...empty(), purged: purged.length, blobKeys: purged.flatMap((a) => (a.blobKey ? [a.blobKey] : [])) };
    if (purged.length === 0) return outcome;
    // Every event of the batch is enqueued in one go; the audit entries that name them follow.
    const purges: { tenantId: string; livemode: boolean; sessionId: string; classes: Partial<Record<ArtifactClass, number>>; artifactIds: string[] }[] = [];
    const events: PurgeEvent[] = [];
    for (const [, group] of groupBy(purged, (a) => a.sessionId)) {
      const { tenantId, livemode, sessionId } = group[0];
      const classes: Partial<Record<ArtifactClass, number>> = {};
      for (const a of group) classes[a.class] = (classes[a.class] ?? 0) + 1;
      purges.push({ tenantId, livemode, sessionId, classes, artifactIds: group.map((a) => a.id) });
      outcome.bySession[sessionId] = group.length;
      for (const [cls, n] of Object.entries(classes) as [ArtifactClass, number][]) {
        outcome.byClass[cls] = (outcome.byClass[cls] ?? 0) + n;
        const scope = (outcome.byScope[`${tenantId}:${livemode}`] ??= { tenantId, livemode, byClass: {} });
        scope.byClass[cls] = (scope.byClass[cls] ?? 0) + n;
        if (isBiometricClass(cls)) events.push({ tenantId, livemode, type: 'biometric.purged', data: { verification_id: sessionId, artifact: cls, purged_at: at.toISOString() } });
      }
    }
    const eventIds = await this.dispatcher.enqueueObligations(events, m);
    outcome.eventIds.push(...eventIds);
    const entries: AuditEntryInput[] = [];
    let next = 0;
    for (const { tenantId, livemode, sessionId, classes, artifactIds } of purges) {
      entries.push({ tenantId, livemode, action: 'artifacts.purged', subjectId: sessionId, detail: { reason, classes, artifact_ids: artifactIds }, at });
      for (const [cls, n] of Object.entries(classes) as [ArtifactClass, number][]) {
        if (!isBiometricClass(cls)) continue;
        const detail = { artifact: cls, count: n, event_id: eventIds[next++], reason };
        entries.push({ tenantId, livemode, action: 'biometric.purged', subjectId: sessionId, detail, at });
        entries.push({ tenantId: null, livemode: null, action: 'biometric.purged', subjectId: sessionId, detail: { ...detail, tenant_id: tenantId, livemode }, at });
      }
    }
    await this.audit.appendMany(entries, m);
    return outcome;
  }
}

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = m.get(k);
    if (list) list.push(it);
    else m.set(k, [it]);
  }
  return m;
}

function add(total: PurgeOutcome, part: PurgeOutcome): void {
  total.purged += part.purged;
  total.eventIds.push(...part.eventIds);
  total.blobKeys.push(...part.blobKeys);
  for (const [id, n] of Object.entries(part.bySession)) total.bySession[id] = (total.bySession[id] ?? 0) + n;
  for (const [cls, n] of Object.entries(part.byClass) as [ArtifactClass, number][]) total.byClass[cls] = (total.byClass[cls] ?? 0) + n;
  for (const [key, p] of Object.entries(part.byScope)) {
    const t = (total.byScope[key] ??= { tenantId: p.tenantId, livemode: p.livemode, byClass: {} });
    for (const [cls, n] of Object.entries(p.byClass) as [ArtifactClass, number][]) t.byClass[cls] = (t.byClass[cls] ?? 0) + n;
  }
}

export type { PurgedArtifact };
