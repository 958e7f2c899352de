import { DataSource } from 'typeorm';
import { AuditLogEntity } from '../../entities';
import { DomainError } from '../errors';
import { logIdOf } from '../../entities/audit-canonical';

export type AuditLogFilter = { action?: string | null; subjectId?: string | null; since?: Date | null; until?: Date | null };
export type AuditPage = { entries: AuditLogEntity[]; hasMore: boolean };

/** A cursor is an entry's position in its log; opaque to clients. */
export const encodeAuditCursor = (e: Pick<AuditLogEntity, 'logSeq'>): string => Buffer.from(`a1:${e.logSeq}`, 'utf8').toString('base64url');

function decodeAuditCursor(cursor: string): number {
  const m = /^a1:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw new DomainError('invalid_request', 'after is not a cursor this query returned');
  return Number(m[1]);
}

/**
 * Reading the audit logs, newest first: a tenant its own log in the key's mode, an operator the
 * service log. Filters narrow by action (exact, or a prefix ending in `.`), subject and time.
 */
export class AuditLogQuery {
  constructor(private readonly db: DataSource) {}

  async page(scope: { tenantId: string; livemode: boolean } | 'service', first: number, after: string | null | undefined, filter: AuditLogFilter = {}): Promise<AuditPage> {
    if (!Number.isInteger(first) || first < 1 || first > 100) throw new DomainError('invalid_request', 'first must be between 1 and 100');
    const logId = scope === 'service' ? logIdOf(null, null) : logIdOf(scope.tenantId, scope.livemode);
    const qb = this.db.getRepository(AuditLogEntity).createQueryBuilder('a').where('a.log_id = :logId', { logId }).orderBy('a.log_seq', 'DESC').take(first + 1);
    if (after) qb.andWhere('a.log_seq < :before', { before: decodeAuditCursor(after) });
    if (filter.action) {
      if (filter.action.length > 100) throw new DomainError('invalid_request', 'action is at most 100 characters');
      if (filter.action.endsWith('.')) qb.andWhere('starts_with(a.action, :prefix)', { prefix: filter.action });
      else qb.andWhere('a.action = :action', { action: filter.action });
    }
    if (filter.subjectId) qb.andWhere('a.subject_id = :subjectId', { subjectId: filter.subjectId });
    for (const [name, d] of [['since', filter.since] as const, ['until', filter.until] as const]) {
      if (d && Number.isNaN(d.getTime())) throw new DomainError('invalid_request', `${name} must be a date-time`);
    }
    if (filter.since) qb.andWhere('a.created_at >= :since', { since: filter.since });
    if (filter.until) qb.andWhere('a.created_at < :until', { until: filter.until });
    const rows = await qb.getMany();
    return { entries: rows.slice(0, first), hasMore: rows.length > first };
  }
}
