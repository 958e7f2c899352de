import { DataSource, EntityManager } from 'typeorm';
import type { AuditEntryInput, AuditLogService } from '../audit/audit-log.service';
import type { WebhookDispatcher } from '../webhooks/webhook.dispatcher';
import { ArtifactClass, isBiometricClass } from './artifact-classes';
import type { ArtifactStore, PurgedArtifact } from './artifact-store';
import type { Clock } from './evidence-vault';

/** Why artifacts were purged: written to the audit log (never free text). */
export type PurgeReason = 'retention_expired' | 'session_completed' | 'user_request' | 'user_deleted' | 'user_purged' | 'operator';

export type PurgeOutcome = {
  purged: number;
  byClass: Partial<Record<ArtifactClass, number>>;
  /** Ids of the `biometric.purged` events enqueued. */
  eventIds: string[];
};

const BATCH = 500;

/**
 * The one place artifacts are purged (retention, session completion, erasure): in one transaction
 * per batch it deletes the bytes, keeps each row with `purged_at` and no personal data, writes one
 * tenant audit entry per session, and for the biometric classes enqueues `biometric.purged` per
 * session and class (an obligation: every endpoint of the tenant receives it) and appends it to
 * the tenant's and the service's audit logs. Purging an already purged artifact does nothing.
 */
export class ArtifactPurger {
  constructor(
    private readonly db: DataSource,
    private readonly store: ArtifactStore,
    private readonly audit: AuditLogService,
    private readonly dispatcher: WebhookDispatcher,
    private readonly now: Clock = () => new Date(),
  ) {}

  async purge(artifactIds: readonly string[], reason: PurgeReason): Promise<PurgeOutcome> {
    const total: PurgeOutcome = { purged: 0, byClass: {}, eventIds: [] };
    for (let i = 0; i < artifactIds.length; i += BATCH) {
      const part = await this.db.transaction((m) => this.purgeIn(m, artifactIds.slice(i, i + BATCH), reason));
      add(total, part);
    }
    return total;
  }

  /** Every unpurged artifact of these sessions (e.g. at completion with 0-day classes, or an erasure). */
  async purgeSessions(sessionIds: readonly string[], reason: PurgeReason, classes?: readonly ArtifactClass[]): Promise<PurgeOutcome> {
    if (sessionIds.length === 0) return { purged: 0, byClass: {}, eventIds: [] };
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
    const total: PurgeOutcome = { purged: 0, byClass: {}, eventIds: [] };
    while (total.purged < limit) {
      const due = await this.store.due(this.now(), Math.min(BATCH, limit - total.purged));
      if (due.length === 0) break;
      const part = await this.db.transaction((m) => this.purgeIn(m, due, 'retention_expired'));
      add(total, part);
      if (part.purged === 0) break;
    }
    return total;
  }

  /** Inside a caller's transaction (e.g. the one that completes a session). */
  async purgeIn(m: EntityManager, artifactIds: readonly string[], reason: PurgeReason): Promise<PurgeOutcome> {
    const at = this.now();
    const purged = await this.store.purgeMany(artifactIds, at, m);
    const outcome: PurgeOutcome = { purged: purged.length, byClass: {}, eventIds: [] };
    if (purged.length === 0) return outcome;
    const entries: AuditEntryInput[] = [];
    for (const [, group] of groupBy(purged, (a) => a.sessionId)) {
      const { tenantId, livemode, sessionId } = group[0];
      const classes: Partial<Record<ArtifactClass, number>> = {};
      for (const a of group) classes[a.class] = (classes[a.class] ?? 0) + 1;
      entries.push({ tenantId, livemode, action: 'artifacts.purged', subjectId: sessionId, detail: { reason, classes, artifact_ids: group.map((a) => a.id) }, at });
      for (const [cls, n] of Object.entries(classes) as [ArtifactClass, number][]) {
        outcome.byClass[cls] = (outcome.byClass[cls] ?? 0) + n;
        if (!isBiometricClass(cls)) continue;
        const data = { verification_id: sessionId, artifact: cls, purged_at: at.toISOString() };
        const eventId = await this.dispatcher.enqueueObligation(tenantId, livemode, 'biometric.purged', data, m);
        outcome.eventIds.push(eventId);
        const detail = { artifact: cls, count: n, event_id: eventId, reason };
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
  for (const it of items) m.set(key(it), [...(m.get(key(it)) ?? []), it]);
  return m;
}

function add(total: PurgeOutcome, part: PurgeOutcome): void {
  total.purged += part.purged;
  total.eventIds.push(...part.eventIds);
  for (const [cls, n] of Object.entries(part.byClass) as [ArtifactClass, number][]) total.byClass[cls] = (total.byClass[cls] ?? 0) + n;
}

export type { PurgedArtifact };
